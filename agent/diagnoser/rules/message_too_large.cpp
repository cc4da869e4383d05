// message_too_large: a list answer is over (or near) the gRPC message limit.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/message_too_large.h"

namespace plegscope {

std::optional<Finding> judge_message_too_large(const Context& c) {
  const Snapshot& s = c.s;
  int trailing = trailing_errors(c, GrpcCode::kResourceExhausted);
  int in_window = window_errors(c, GrpcCode::kResourceExhausted);
  int call_errors = recent_call_errors(c, GrpcCode::kResourceExhausted, true);
  double bytes = 0;
  std::string bytes_op;
  for (const auto& [name, st] : s.operations)
    if (is_list_op(name) && st.last_list_bytes && static_cast<double>(*st.last_list_bytes) > bytes) {
      bytes = static_cast<double>(*st.last_list_bytes);
      bytes_op = name;
    }
  const double fraction = bytes / c.t.message_limit_bytes;

  Finding f;
  MessageTooLargeDetails d;  // filled beside the form, set once the form is chosen
  if (trailing > 0 || in_window > 0 || call_errors > 0) {
    f = make_finding(CauseId::kMessageTooLarge, Severity::kCritical, trailing > 0 ? 0.95 : 0.8, Form::kOverLimit);
    d.calls = std::max({trailing, in_window, call_errors});
  } else if (fraction >= c.t.message_warn_fraction) {
    double confidence = 0.6 + 0.3 * std::clamp((fraction - c.t.message_warn_fraction) /
                                                   (1 - c.t.message_warn_fraction), 0.0, 1.0);
    f = make_finding(CauseId::kMessageTooLarge, Severity::kWarning, confidence, Form::kNearLimit);
    f.op = bytes_op;
    d.bytes = bytes;
    d.share = fraction;
  } else {
    return std::nullopt;
  }
  d.limit_bytes = c.t.message_limit_bytes;
  // Exited containers piling up, or a few containers with huge labels?
  d.mostly_exited = c.last_ok && c.last_ok->containers > 0 &&
                    c.last_ok->exited_containers >= 0.3 * c.last_ok->containers;
  f.details<MessageTooLargeDetails>() = std::move(d);
  f.evidence.push_back({"relist_errors_in_window{RESOURCE_EXHAUSTED}", static_cast<double>(in_window), 0});
  if (call_errors > 0)
    f.evidence.push_back({"list_errors_recent{RESOURCE_EXHAUSTED}", static_cast<double>(call_errors), 0});
  if (!bytes_op.empty())
    f.evidence.push_back({"list_response_bytes{" + bytes_op + "}", bytes,
                          c.t.message_limit_bytes * c.t.message_warn_fraction});
  if (c.last_ok) {
    f.evidence.push_back({"containers", static_cast<double>(c.last_ok->containers), {}});
    f.evidence.push_back({"exited_containers", static_cast<double>(c.last_ok->exited_containers), {}});
  }
  return f;
}

}  // namespace plegscope
