// runtime_unavailable: the CRI socket is missing, refuses, or answers UNAVAILABLE.
#include <algorithm>

#include "diagnoser/prose.h"
#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Cause> judge_runtime_unavailable(const Context& c) {
  const Snapshot& s = c.s;
  int trailing = trailing_errors(c, GrpcCode::kUnavailable);
  int in_window = window_errors(c, GrpcCode::kUnavailable);
  bool socket_missing = s.socket_present.has_value() && !*s.socket_present;
  if (trailing < c.t.unavailable_relists && in_window == 0) return std::nullopt;

  // A runtime that answers between its failures is flapping, not down,
  // until a whole window of relists fails in a row.
  const bool down = trailing >= c.t.unavailable_relists &&
                    (socket_missing || !failures_interleaved(c, GrpcCode::kUnavailable) ||
                     trailing >= std::max(c.t.unavailable_relists, c.t.window_relists));
  Cause cause;
  if (down) {
    cause = make_cause(CauseId::kRuntimeUnavailable, Severity::kCritical,
                       0.75 + 0.05 * std::min(3, trailing - 1) + (socket_missing ? 0.1 : 0));
    cause.reason = socket_missing ? "the CRI socket " + s.endpoint + " does not exist"
                                  : "the runtime at " + s.endpoint + " answers UNAVAILABLE (" +
                                        text::count(trailing, "relist", "relists") + " in a row failed)";
    cause.action = socket_missing ? "start the runtime service, or fix the endpoint"
                                  : "check why the runtime service is down";
  } else {
    // Flapping: some recent relists failed, good ones between them.
    double share = static_cast<double>(in_window) / std::max(1, window_relist_count(c));
    cause = make_cause(CauseId::kRuntimeUnavailable, Severity::kWarning, 0.4 + 0.25 * share);
    cause.reason = "the runtime answered UNAVAILABLE in " + text::count(in_window, "relist", "relists") +
                   " of the last " + text::duration(to_seconds(s.now - c.window_start)) +
                   (trailing > 0 ? ", with good relists between them" : ", not in the last one");
    cause.action = "check the runtime's logs for restarts";
  }
  cause.summary = "The container runtime is unreachable: " + cause.reason + ".";
  cause.evidence.push_back({"relists_failed_unavailable_in_a_row", static_cast<double>(trailing),
                            static_cast<double>(c.t.unavailable_relists)});
  cause.evidence.push_back({"relist_errors_in_window{UNAVAILABLE}", static_cast<double>(in_window), 0});
  if (s.socket_present) cause.evidence.push_back({"socket_present", *s.socket_present ? 1.0 : 0.0, 1});
  if (s.last_seen)
    cause.evidence.push_back({"seconds_since_last_seen", to_seconds(s.now - *s.last_seen),
                              to_seconds(s.relist_threshold)});
  return cause;
}

}  // namespace plegscope
