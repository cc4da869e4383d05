#include "condition/verdict_transitions.h"
#include "common/thread_name.h"

#include <algorithm>

namespace plegscope {

TransitionLimiter::TransitionLimiter(TransitionLimits limits)
    : limits_(limits), tokens_(std::max(1, limits.burst)) {}

bool TransitionLimiter::take_token(MonoTime now) {
  if (refilled_at_ && limits_.refill.count() > 0) {
    double earned = to_seconds(now - *refilled_at_) / to_seconds(limits_.refill);
    tokens_ = std::min<double>(std::max(1, limits_.burst), tokens_ + earned);
  }
  refilled_at_ = now;
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

std::optional<VerdictTransition> TransitionLimiter::observe(Status status, MonoTime now) {
  if (seen_ && *seen_ != status) changes_++;
  seen_ = status;
  bool differs = !recorded_ || *recorded_ != status;
  // A flap that ends where the last record stands is still recorded once a
  // token allows: its count says the node flapped meanwhile.
  if (!differs && changes_ == 0) return std::nullopt;
  if (!take_token(now)) return std::nullopt;
  VerdictTransition t;
  t.previous = recorded_;
  t.status = status;
  // A record from one status to another stands for one of the changes.
  t.suppressed = changes_ - (recorded_ && differs ? 1 : 0);
  recorded_ = status;
  changes_ = 0;
  return t;
}

VerdictWatch::VerdictWatch(const DiagnosisService& diagnosis, const Clock& clock, Sink sink, TransitionLimits limits)
    : diagnosis_(diagnosis), clock_(clock), sink_(std::move(sink)), limiter_(limits) {}

void VerdictWatch::check() {
  auto diagnosis = diagnosis_.latest();
  if (!diagnosis->has_verdict()) return;
  if (auto t = limiter_.observe(diagnosis->report.status, clock_.monotonic())) sink_(*t, *diagnosis);
}

}  // namespace plegscope
