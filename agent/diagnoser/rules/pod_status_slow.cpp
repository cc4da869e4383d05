// pod_status_slow: PodSandboxStatus / ContainerStatus calls are slow, so every
// changed pod costs seconds to inspect. Judged from the calls, including one
// still in flight, not from completed relists.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/pod_status_slow.h"

namespace plegscope {

std::optional<Finding> judge_pod_status_slow(const Context& c) {
  const CallLatency& l = c.statuses;
  const double threshold = c.t.slow_status_seconds;
  if (l.op.empty() || l.p99 < threshold) return std::nullopt;
  // A single slow call is a blip unless it is far past the threshold.
  if (l.slow < 2 && l.p99 < 4 * threshold) return std::nullopt;
  double confidence = 0.6 + (c.status_share >= 0.5 ? 0.15 : 0) + (l.p50 >= threshold ? 0.1 : 0) +
                      (l.p99 >= 4 * threshold ? 0.05 : 0);
  Finding f = make_finding(CauseId::kPodStatusSlow, Severity::kWarning, confidence);
  PodStatusSlowDetails& d = f.details<PodStatusSlowDetails>();
  f.op = l.op;
  f.seconds = l.p99;
  d.median_seconds = l.p50;
  d.threshold_seconds = threshold;
  d.call_in_flight = l.in_flight_slow;
  // The pods behind the slowest status calls of the window.
  for (const auto& pc : c.s.pod_calls) {
    if (!is_status_op(pc.op) || pc.seconds < threshold || (!pc.in_flight && pc.end < c.window_start)) continue;
    bool seen = false;
    for (const auto& p : f.pods) seen = seen || (p.uid == pc.pod.uid && p.sandbox_id == pc.pod.sandbox_id);
    if (!seen && f.pods.size() < 3) f.pods.push_back(pc.pod);
  }
  f.evidence.push_back({"p99_seconds{" + l.op + "}", l.p99, threshold});
  f.evidence.push_back({"p50_seconds{" + l.op + "}", l.p50, threshold});
  f.evidence.push_back({"slow_status_calls_recent", static_cast<double>(l.slow), 2});
  f.evidence.push_back({"status_share_of_relist", c.status_share, 0.5});
  return f;
}

}  // namespace plegscope
