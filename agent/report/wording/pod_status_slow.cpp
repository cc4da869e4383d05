// The words of pod_status_slow: slow PodSandboxStatus / ContainerStatus calls.
#include "diagnoser/rules/pod_status_slow.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const PodStatusSlowDetails& d = f.details<PodStatusSlowDetails>();
  CauseWords w;
  w.reason = cri_method(f.op) + " takes " + text::elapsed(f.seconds) + " (p99, median " +
             text::elapsed(d.median_seconds) + (d.call_in_flight ? ", one call still in flight" : "") +
             "), so every changed pod costs seconds to inspect";
  w.action = "find which pods' sandboxes or containers are slow to inspect";
  if (!f.pods.empty()) {  // the pods behind the slowest calls
    w.reason += "; slowest: " + pods_words(f.pods);
    w.action = "inspect " + pods_words(f.pods, 1) + " first";
  }
  w.summary = "Pod status calls are slow: " + w.reason + ".";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## pod_status_slow
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording pod_status_slow_wording = {
  {"`time {crictl} inspectp <pod-id>` and `time {crictl} inspect <container-id>` on the top pods in this "
   "report; `timeout 20 journalctl -u {service} --since -1h | grep -iE 'cni|teardown|StopPodSandbox'` for slow "
   "network teardown; the CNI plugin's log.",
   "Fix the slow component: the CNI plugin or IPAM that blocks sandbox status (a stale netns, an unreachable "
   "IPAM store), the disk holding container logs and state, a runtime handler with slow status (gVisor, Kata); "
   "upgrade the runtime.",
   "Delete the pods blindly: find the handler or plugin first."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
