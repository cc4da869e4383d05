// runtime_not_ready: the runtime answers Status with RuntimeReady false (or
// without it). The kubelet says "container runtime not ready: ..." and
// stops counting the answer as a sync, so 30 s later "is down" as well.
#include "cri/operation_names.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_not_ready.h"

namespace plegscope {

std::optional<Finding> judge_runtime_not_ready(const Context& c) {
  const RuntimeStatusEvidence& e = c.s.runtime_status;
  if (!e.enabled || !e.answered || e.consecutive_failures > 0 || e.runtime_not_ready.empty()) return std::nullopt;
  Finding f = make_finding(CauseId::kRuntimeNotReady, Severity::kCritical, 0.92);
  RuntimeNotReadyDetails& d = f.details<RuntimeNotReadyDetails>();
  f.op = op::kStatus;
  d.condition = reported_condition(e.runtime_ready);
  f.seconds = e.seconds_since_success;
  d.threshold_seconds = e.down_threshold_seconds;
  d.status_down_in_seconds = e.runtime_down ? 0.0 : std::max(0.0, e.down_threshold_seconds - e.seconds_since_success);
  d.transitions = e.transitions_recent;
  if (c.s.kubelet.ready_message)
    d.ready_message_agrees = c.s.kubelet.ready_says.runtime_not_ready;
  f.evidence.push_back({"runtime_condition{RuntimeReady}", 0, 1});
  f.evidence.push_back({"runtime_status_seconds_since_success", e.seconds_since_success, e.down_threshold_seconds});
  return f;
}

}  // namespace plegscope
