// runtime_network_not_ready: the runtime answers Status with NetworkReady
// false (no CNI configuration loaded, a CNI plugin not initialized), or its
// readiness keeps changing. The kubelet's Ready condition carries "container
// runtime network not ready: ..." and the node is NotReady while it lasts.
#include "cri/operation_names.h"
#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Finding> judge_runtime_network_not_ready(const Context& c) {
  const RuntimeStatusEvidence& e = c.s.runtime_status;
  if (!e.enabled || !e.answered) return std::nullopt;
  // Flapping: at least two changes over the recent calls (a minute).
  const bool flapping = e.transitions_recent >= 2;
  const bool not_ready = e.consecutive_failures == 0 && !e.network_not_ready.empty();
  if (!not_ready && !flapping) return std::nullopt;
  Finding f = not_ready ? make_finding(CauseId::kRuntimeNetworkNotReady, Severity::kCritical, flapping ? 0.88 : 0.9,
                                       flapping ? Form::kFlapping : Form::kFound)
                        : make_finding(CauseId::kRuntimeNetworkNotReady, Severity::kWarning, 0.6, Form::kFlapping);
  f.op = op::kStatus;
  set_condition(f, e.network_ready);
  f.transitions = e.transitions_recent;
  f.calls = e.recent_calls;
  f.failed_last = not_ready;
  if (c.s.kubelet.ready_message)
    f.ready_message_agrees = c.s.kubelet.ready_says.network_not_ready;
  f.evidence.push_back({"runtime_condition{NetworkReady}", not_ready ? 0.0 : 1.0, 1});
  if (flapping)
    f.evidence.push_back({"runtime_readiness_changes_recent", static_cast<double>(e.transitions_recent), 2});
  return f;
}

}  // namespace plegscope
