// pod_status_slow: PodSandboxStatus / ContainerStatus calls are slow, so every
// changed pod costs seconds to inspect. Judged from the calls, including one
// still in flight, not from completed relists.
#include <algorithm>

#include "diagnoser/prose.h"
#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Cause> judge_pod_status_slow(const Context& c) {
  const CallLatency& l = c.statuses;
  const double threshold = c.t.slow_status_seconds;
  if (l.op.empty() || l.p99 < threshold) return std::nullopt;
  // A single slow call is a blip unless it is far past the threshold.
  if (l.slow < 2 && l.p99 < 4 * threshold) return std::nullopt;
  double confidence = 0.6 + (c.status_share >= 0.5 ? 0.15 : 0) + (l.p50 >= threshold ? 0.1 : 0) +
                      (l.p99 >= 4 * threshold ? 0.05 : 0);
  Cause cause = make_cause(CauseId::kPodStatusSlow, Severity::kWarning, confidence);
  cause.reason = cri_method(l.op) + " takes " + text::duration(l.p99) + " (p99, median " + text::duration(l.p50) +
                 (l.in_flight_slow ? ", one call still in flight" : "") +
                 "), so every changed pod costs seconds to inspect";
  cause.action = "find which pods' sandboxes or containers are slow to inspect";
  cause.summary = "Pod status calls are slow: " + cause.reason + ".";
  cause.evidence.push_back({"p99_seconds{" + l.op + "}", l.p99, threshold});
  cause.evidence.push_back({"p50_seconds{" + l.op + "}", l.p50, threshold});
  cause.evidence.push_back({"slow_status_calls_recent", static_cast<double>(l.slow), 2});
  cause.evidence.push_back({"status_share_of_relist", c.status_share, 0.5});
  return cause;
}

}  // namespace plegscope
