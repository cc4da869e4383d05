#include "pleg/relist_backoff.h"

#include <algorithm>
#include <chrono>

#include "common/go_duration.h"
#include "common/grpc_codes.h"

namespace plegscope {

RelistBackoff::RelistBackoff(Duration base, Duration max) : base_(base), max_(max), period_(base) {}

bool RelistBackoff::strained(const RelistOutcome& outcome) const {
  const GrpcCode code = outcome.error_code;
  return outcome.duration > base_ || code == GrpcCode::kDeadlineExceeded || code == GrpcCode::kUnavailable;
}

int RelistBackoff::strained_in_window() const {
  return static_cast<int>(std::count(window_.begin(), window_.end(), true));
}

void RelistBackoff::record(const RelistOutcome& outcome) {
  const bool is_strained = strained(outcome);
  window_[next_] = is_strained;
  next_ = (next_ + 1) % kWindow;
  recorded_ = std::min(recorded_ + 1, kWindow);
  if (is_strained) last_strained_ = outcome;
  if (max_ <= base_) {
    period_ = base_;
    return;
  }
  if (is_strained && strained_in_window() >= kStrainedToStretch) {
    period_ = std::min(max_, std::max(period_ * 2, base_ * 2));
  } else if (!is_strained) {
    period_ = std::max(base_, period_ / 2);
  }
}

void RelistBackoff::set_base(Duration base) {
  // A new pace (evented mode, or the fall-back from it) starts unstretched.
  base_ = base;
  period_ = base;
}

std::optional<RelistStretch> RelistBackoff::stretch() const {
  if (period_ <= base_) return std::nullopt;
  const std::string last = last_strained_.error_code != GrpcCode::kOk
                               ? std::string("failed with ") + grpc_code_name(last_strained_.error_code)
                               // to the millisecond: "2.394s", not Go's "2.394490126s"
                               : "took " + format_go_duration(std::chrono::round<std::chrono::milliseconds>(
                                               last_strained_.duration));
  return RelistStretch{period_, "relist period stretched to " + format_go_duration(period_) +
                                    " (flag " + format_go_duration(base_) + ", at most " +
                                    format_go_duration(max_) + ") to spare a struggling runtime: " +
                                    std::to_string(strained_in_window()) + " of the last " +
                                    std::to_string(recorded_) +
                                    " relists were slow or failed (last " + last + ")"};
}

}  // namespace plegscope
