// The words of too_many_containers: relist cost dominated by the number of objects.
#include "diagnoser/rules/too_many_containers.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const TooManyContainersDetails& d = f.details<TooManyContainersDetails>();
  CauseWords w;
  w.reason = "the runtime holds " + std::to_string(d.objects) + " sandboxes and containers (" +
             std::to_string(d.exited) + " exited) and every relist lists them all (" +
             text::elapsed(d.list_seconds) + ")";
  w.action = d.mostly_exited ? "remove exited containers and fix whatever piles them up"
                             : "spread the pods over more nodes (lower maxPods here): they are running, "
                               "not leftovers";
  w.summary = "Relist cost is dominated by object count: " + w.reason + ".";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## too_many_containers
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording too_many_containers_wording = {
  {"`{crictl} ps -a -q | wc -l` against `{crictl} ps -q | wc -l` (all containers against running ones) and "
   "`{crictl} pods -q | wc -l`; `{crictl} ps -a --state exited` shows which pods leave exited containers "
   "behind.",
   "Fix the crash-looping workloads, remove exited containers (`{crictl} ps -a --state exited -q | xargs -r "
   "{crictl} rm`), tighten the kubelet's container GC (`maxPerPodContainer`, `maxContainers`), and lower "
   "`maxPods` on the node if running containers alone make relists slow.",
   "Delete pods through the API server to make room: the exited containers are what costs."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
