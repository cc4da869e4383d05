// runtime_unavailable: the CRI socket is missing, refuses, or answers UNAVAILABLE.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_unavailable.h"

namespace plegscope {

namespace {

// A warning about the agent, never a verdict on the node: the kubelet may be
// reading the same runtime fine. Its confidence stays below the fleet-wide
// veto's minimum, so agents blind by one bad rollout read as no cause.
constexpr double kBlindConfidence = 0.3;

}  // namespace

std::optional<Finding> judge_runtime_unavailable(const Context& c) {
  const Snapshot& s = c.s;
  if (s.agent_blind) {
    Finding f = make_finding(CauseId::kRuntimeUnavailable, Severity::kWarning, kBlindConfidence, Form::kBlind);
    RuntimeUnavailableDetails& d = f.details<RuntimeUnavailableDetails>();
    d.endpoint = s.endpoint;
    d.blind_reason = connect_problem_name(s.unreachable);
    f.evidence.push_back({"runtime_unreachable{" + d.blind_reason + "}", 1, 0});
    if (s.socket_present) f.evidence.push_back({"socket_present", *s.socket_present ? 1.0 : 0.0, 1});
    return f;
  }
  int trailing = trailing_errors(c, GrpcCode::kUnavailable);
  int in_window = window_errors(c, GrpcCode::kUnavailable);
  bool socket_missing = s.socket_present.has_value() && !*s.socket_present;
  if (trailing < c.t.unavailable_relists && in_window == 0) return std::nullopt;

  // A runtime that answers between its failures is flapping, not down,
  // until a whole window of relists fails in a row.
  const bool down = trailing >= c.t.unavailable_relists &&
                    (socket_missing || !failures_interleaved(c, GrpcCode::kUnavailable) ||
                     trailing >= std::max(c.t.unavailable_relists, c.t.window_relists));
  Finding f;
  RuntimeUnavailableDetails d;  // filled beside the form, set once the form is chosen
  if (down) {
    f = make_finding(CauseId::kRuntimeUnavailable, Severity::kCritical,
                     0.75 + 0.05 * std::min(3, trailing - 1) + (socket_missing ? 0.1 : 0),
                     socket_missing ? Form::kSocketMissing : Form::kDown);
    d.relists = trailing;
    d.endpoint = s.endpoint;
  } else {
    // Flapping: some recent relists failed, good ones between them.
    double share = static_cast<double>(in_window) / std::max(1, window_relist_count(c));
    f = make_finding(CauseId::kRuntimeUnavailable, Severity::kWarning, 0.4 + 0.25 * share, Form::kFlapping);
    d.relists = in_window;
    d.window_seconds = to_seconds(s.now - c.window_start);
    d.failed_last = trailing > 0;
  }
  f.details<RuntimeUnavailableDetails>() = std::move(d);
  f.evidence.push_back({"relists_failed_unavailable_in_a_row", static_cast<double>(trailing),
                        static_cast<double>(c.t.unavailable_relists)});
  f.evidence.push_back({"relist_errors_in_window{UNAVAILABLE}", static_cast<double>(in_window), 0});
  if (s.socket_present) f.evidence.push_back({"socket_present", *s.socket_present ? 1.0 : 0.0, 1});
  if (s.last_seen)
    f.evidence.push_back({"seconds_since_last_seen", to_seconds(s.now - *s.last_seen),
                          to_seconds(s.relist_threshold)});
  return f;
}

}  // namespace plegscope
