// kubelet_internal: the kubelet's own relist has stopped (its relist count
// flat, or its last-seen timestamp aging) while the agent's relists against
// the same runtime complete in their normal time: the runtime answers, the
// kubelet does not ask (kubernetes#72482).
#include <algorithm>

#include "common/quantile.h"
#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Finding> judge_kubelet_internal(const Context& c) {
  const KubeletEvidence& k = c.s.kubelet;
  if (!k.reachable) return std::nullopt;
  const KubeletView& v = k.view;
  // The kubelet relists once per period of its model (300 s with the legacy
  // EventedPLEG gate): a count flat for a period plus the hang threshold has
  // stopped, not paused.
  const double stall_after = c.t.hang_seconds + v.model.relist_period_seconds;
  std::optional<double> flat, age;
  // Only what the scrapes saw: between two scrapes the count is unknown,
  // not flat (a healthy kubelet relists many times between them).
  if (v.relist_count && v.samples >= 2 && v.seconds_since_relist_advanced)
    flat = std::max(0.0, *v.seconds_since_relist_advanced - v.sample_age_seconds.value_or(0));
  // Same host, same wall clock: a negative age is a clock step, not evidence.
  if (v.last_seen_age_seconds && *v.last_seen_age_seconds >= 0) age = v.last_seen_age_seconds;
  const double stalled = std::max(flat.value_or(0), age.value_or(0));
  if (stalled < stall_after) return std::nullopt;

  // The agent's relists on the same runtime must be normal: recent, quick,
  // and no call hung. Otherwise the runtime is the suspect (runtime_hung, ...).
  const Snapshot& s = c.s;
  if (c.hung() || !c.last_ok || !s.last_seen) return std::nullopt;
  if (to_seconds(s.now - *s.last_seen) > c.t.hang_seconds + c.period_seconds()) return std::nullopt;
  if (c.in_progress && to_seconds(c.in_progress->duration) >= c.t.hang_seconds) return std::nullopt;
  std::vector<double> durations;
  for (const RelistRecord* r : c.window_ok) durations.push_back(to_seconds(r->duration));
  const double agent_p99 = quantile(durations, 0.99);
  if (agent_p99 >= c.t.hang_seconds) return std::nullopt;

  const double threshold = v.model.relist_threshold_seconds;
  const double reach = std::clamp((stalled - stall_after) / std::max(1.0, threshold - stall_after), 0.0, 1.0);
  Finding f = make_finding(CauseId::kKubeletInternal, stalled >= threshold ? Severity::kCritical : Severity::kWarning,
                           0.6 + 0.3 * reach);
  f.endpoint = k.endpoint;
  f.seconds = stalled;
  f.threshold_seconds = stall_after;
  f.model_threshold_seconds = threshold;
  f.kubelet_last_seen_age_seconds = age;
  f.kubelet_flat_seconds = flat;
  f.agent_relist_p99_seconds = agent_p99;
  if (age) f.evidence.push_back({"kubelet_last_seen_age_seconds", *age, stall_after});
  if (flat) f.evidence.push_back({"kubelet_seconds_since_relist_count_advanced", *flat, stall_after});
  f.evidence.push_back({"agent_relist_p99_seconds", agent_p99, c.t.hang_seconds});
  return f;
}

}  // namespace plegscope
