#include <algorithm>
#include <cmath>

#include "diagnoser/rule.h"

namespace plegscope {

const std::vector<Rule>& rule_table() {
  static const std::vector<Rule> rules = {
      {CauseId::kRuntimeUnavailable, judge_runtime_unavailable},
      {CauseId::kRuntimeHung, judge_runtime_hung},
      {CauseId::kRuntimeSlow, judge_runtime_slow},
      {CauseId::kMessageTooLarge, judge_message_too_large},
      {CauseId::kTooManyContainers, judge_too_many_containers},
      {CauseId::kEventStorm, judge_event_storm},
      {CauseId::kPodStatusSlow, judge_pod_status_slow},
      {CauseId::kReinspectBacklog, judge_reinspect_backlog},
      {CauseId::kNodePressure, judge_node_pressure},
  };
  return rules;
}

Cause make_cause(CauseId id, Severity severity, double confidence) {
  constexpr double kMaxConfidence = 0.98;
  Cause c;
  c.id = id;
  c.severity = severity;
  c.confidence = std::round(std::clamp(confidence, 0.0, kMaxConfidence) * 100) / 100;
  return c;
}

}  // namespace plegscope
