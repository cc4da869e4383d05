// The words of runtime_slow: list calls slow for the number of objects they return.
#include "diagnoser/rules/runtime_slow.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const RuntimeSlowDetails& d = f.details<RuntimeSlowDetails>();
  CauseWords w;
  const std::string objects = d.objects > 0 ? " for only " + std::to_string(d.objects) + " sandboxes and containers"
                                            : " before the first answer";
  w.reason = f.form == Form::kListsSlowPerRelist
                 ? "list calls take " + text::elapsed(f.seconds) + " per relist" + objects
                 : cri_method(f.op) + " takes " + text::elapsed(f.seconds) + objects +
                       (d.call_in_flight ? " (one call still in flight)" : "");
  w.action = "look for slow storage or lock contention in the runtime";
  w.summary = "The runtime is slow to list: " + w.reason + ".";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## runtime_slow
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording runtime_slow_wording = {
  {"`time {crictl} ps -a -q | wc -l` and `time {crictl} pods -q | wc -l`: seconds for a few hundred containers "
   "is slow (a healthy runtime lists a thousand in well under a second). `timeout 10 iostat -x 1 5` on the disk "
   "holding `{state_dir}`, IO pressure in `/proc/pressure/io`, and the runtime's log for slow operations.",
   "Give the runtime what it lacks: faster or less contended storage for `{state_dir}`, CPU reserved for the "
   "runtime and the kubelet (`systemReserved`), fewer co-located IO-heavy workloads, a runtime upgrade (list "
   "paths have had lock-contention fixes). If node_pressure shows too, relieve that first.",
   "Raise the kubelet's relist threshold to hide it: events stay as late."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
