// runtime_hung: a CRI call has been in flight longer than --hang-threshold,
// or list calls already ran into their deadline.
#include <algorithm>

#include "diagnoser/prose.h"
#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Cause> judge_runtime_hung(const Context& c) {
  const Snapshot& s = c.s;
  const double hang = c.t.hang_seconds;
  if (!c.hung()) {
    int deadline = window_errors(c, GrpcCode::kDeadlineExceeded);
    if (deadline == 0) return std::nullopt;
    if (failures_interleaved(c, GrpcCode::kDeadlineExceeded)) {
      // Good relists between the failed ones: the runtime stalls on and
      // off (a slow shim, a lock held for a while), it has not stopped.
      double share = static_cast<double>(deadline) / std::max(1, window_relist_count(c));
      Cause cause = make_cause(CauseId::kRuntimeHung, Severity::kWarning, 0.4 + 0.25 * share);
      cause.reason = "list calls hit their deadline (DEADLINE_EXCEEDED) in " +
                     text::count(deadline, "relist", "relists") + " of the last " +
                     text::duration(to_seconds(s.now - c.window_start)) + ", with good relists between them";
      cause.action = "capture the runtime's goroutine dump during a stall and look for a stuck shim";
      cause.summary = "The runtime stalls on and off: " + cause.reason + ".";
      cause.evidence.push_back({"relist_errors_in_window{DEADLINE_EXCEEDED}", static_cast<double>(deadline), 0});
      return cause;
    }
    // A hang that already reached --runtime-request-timeout.
    Cause cause = make_cause(CauseId::kRuntimeHung, Severity::kCritical, 0.7);
    cause.reason = "list calls hit their deadline (DEADLINE_EXCEEDED) in " +
                   text::count(deadline, "recent relist", "recent relists");
    cause.action = "capture the runtime's goroutine dump, then restart it";
    cause.summary = "The runtime stopped answering: " + cause.reason + ".";
    cause.evidence.push_back({"relist_errors_in_window{DEADLINE_EXCEEDED}", static_cast<double>(deadline), 0});
    return cause;
  }
  double over = (c.hung_seconds - hang) / (2 * hang);
  Cause cause = make_cause(CauseId::kRuntimeHung, Severity::kCritical, 0.8 + 0.15 * std::clamp(over, 0.0, 1.0));
  const auto& st = s.operations.at(c.hung_op);
  cause.reason = cri_method(c.hung_op) + " has been in flight for " + text::duration(c.hung_seconds) +
                 " (hang threshold " + text::duration(hang) + ")";
  cause.action = "the runtime is hung; capture its goroutine dump, then restart it";
  cause.summary = "A CRI call is hung: " + cause.reason + ", so the relist cannot finish.";
  cause.evidence.push_back({"oldest_in_flight_seconds{" + c.hung_op + "}", c.hung_seconds, hang});
  cause.evidence.push_back({"in_flight{" + c.hung_op + "}", static_cast<double>(st.in_flight), {}});
  if (c.in_progress)
    cause.evidence.push_back({"relist_in_progress_seconds", to_seconds(c.in_progress->duration),
                              to_seconds(s.relist_threshold)});
  if (s.last_seen)
    cause.evidence.push_back({"seconds_since_last_seen", to_seconds(s.now - *s.last_seen),
                              to_seconds(s.relist_threshold)});
  return cause;
}

}  // namespace plegscope
