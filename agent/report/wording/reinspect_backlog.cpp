// The words of reinspect_backlog: pods failing inspection, retried every relist.
#include "diagnoser/rules/reinspect_backlog.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const ReinspectBacklogDetails& d = f.details<ReinspectBacklogDetails>();
  CauseWords w;
  w.reason = text::count(d.pod_count, "pod has", "pods have") + " failed inspection for " +
             text::count(d.relists, "relist", "relists") + " in a row and " + (d.pod_count == 1 ? "is" : "are") +
             " retried every relist";
  w.action = "find the pods whose status calls fail";
  w.summary = "A reinspection backlog: " + w.reason + ".";
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  "`{crictl} pods`, then `{crictl} inspectp <pod-id>` and `{crictl} inspect <container-id>` for each "
  "pod's sandbox and containers: the one that errors is the culprit (often a sandbox with a missing "
  "netns, or a container whose conmon died). The runtime's log has errors for it.",
  nullptr,
  nullptr,
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## reinspect_backlog
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording reinspect_backlog_wording = {
  {"`{crictl} pods`, then `{crictl} inspectp <pod-id>` and `{crictl} inspect <container-id>` for each pod's "
   "sandbox and containers: the one that errors is the culprit (often a sandbox with a missing netns, or a "
   "container whose shim died). The runtime's log has errors for it.",
   "Once the pod is gone from the API server, remove its broken sandbox (`{crictl} stopp <pod-id>`, then "
   "`{crictl} rmp <pod-id>`) or container (`{crictl} rm <container-id>`), and fix what breaks them (often CNI "
   "teardown). Restart the runtime if its state for them is corrupt.",
   "Remove sandboxes of pods that still exist in the API server."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
