// runtime_hung: a CRI call has been in flight longer than --hang-threshold,
// or list calls already ran into their deadline.
#include <algorithm>

#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Finding> judge_runtime_hung(const Context& c) {
  const Snapshot& s = c.s;
  const double hang = c.t.hang_seconds;
  if (!c.hung()) {
    int deadline = window_errors(c, GrpcCode::kDeadlineExceeded);
    if (deadline == 0) return std::nullopt;
    Finding f;
    if (failures_interleaved(c, GrpcCode::kDeadlineExceeded)) {
      // Good relists between the failed ones: the runtime stalls on and
      // off (a slow shim, a lock held for a while), it has not stopped.
      double share = static_cast<double>(deadline) / std::max(1, window_relist_count(c));
      f = make_finding(CauseId::kRuntimeHung, Severity::kWarning, 0.4 + 0.25 * share, Form::kStalling);
      f.window_seconds = to_seconds(s.now - c.window_start);
    } else {
      // A hang that already reached --runtime-request-timeout.
      f = make_finding(CauseId::kRuntimeHung, Severity::kCritical, 0.7, Form::kDeadlines);
    }
    f.relists = deadline;
    f.evidence.push_back({"relist_errors_in_window{DEADLINE_EXCEEDED}", static_cast<double>(deadline), 0});
    return f;
  }
  double over = (c.hung_seconds - hang) / (2 * hang);
  Finding f = make_finding(CauseId::kRuntimeHung, Severity::kCritical, 0.8 + 0.15 * std::clamp(over, 0.0, 1.0),
                           Form::kCallHung);
  const auto& st = s.operations.at(c.hung_op);
  f.op = c.hung_op;
  f.seconds = c.hung_seconds;
  f.threshold_seconds = hang;
  f.evidence.push_back({"oldest_in_flight_seconds{" + c.hung_op + "}", c.hung_seconds, hang});
  f.evidence.push_back({"in_flight{" + c.hung_op + "}", static_cast<double>(st.in_flight), {}});
  if (c.in_progress)
    f.evidence.push_back({"relist_in_progress_seconds", to_seconds(c.in_progress->duration),
                          to_seconds(s.relist_threshold)});
  if (s.last_seen)
    f.evidence.push_back({"seconds_since_last_seen", to_seconds(s.now - *s.last_seen),
                          to_seconds(s.relist_threshold)});
  return f;
}

}  // namespace plegscope
