#include "condition/condition_policy.h"

#include <cctype>

namespace plegscope {

std::optional<ConditionWrite> ConditionPolicy::wanted(const ConditionVerdict& v, MonoTime now) const {
  const bool unhealthy = v.status == Status::kUnhealthy;
  const bool critical_held = critical_since_ && now - *critical_since_ >= options_.hold;
  if ((unhealthy || critical_held) && v.top) return ConditionWrite{true, v.top, ConditionChange::kUnhealthy};
  const bool cleared = healthy_since_ && now - *healthy_since_ >= options_.clear_after;
  if (cleared) return ConditionWrite{false, std::nullopt, ConditionChange::kRecovered};
  return std::nullopt;  // in between: whatever was written stands
}

std::optional<ConditionWrite> ConditionPolicy::observe(const ConditionVerdict& v, MonoTime now) {
  if (v.blind) {
    critical_since_.reset();
    healthy_since_.reset();
    return std::nullopt;
  }
  const bool critical = v.status == Status::kAtRisk && v.top && v.top_severity == Severity::kCritical;
  if (!critical) critical_since_.reset();
  else if (!critical_since_) critical_since_ = now;
  if (v.status != Status::kHealthy || !v.has_verdict) healthy_since_.reset();
  else if (!healthy_since_) healthy_since_ = now;
  if (!v.has_verdict) return std::nullopt;

  std::optional<ConditionWrite> want = wanted(v, now);
  if (!want) {
    // Not yet True, not yet cleared: only the heartbeat of what stands.
    if (written_ && last_write_ && now - *last_write_ >= options_.heartbeat)
      return ConditionWrite{written_->problem, written_->cause, ConditionChange::kHeartbeat};
    return std::nullopt;
  }
  if (!written_) {
    if (!want->problem) want->change = ConditionChange::kFirstHealthy;
    return want;
  }
  const bool same = want->problem == written_->problem && want->cause == written_->cause;
  if (same) {
    if (last_write_ && now - *last_write_ >= options_.heartbeat)
      return ConditionWrite{written_->problem, written_->cause, ConditionChange::kHeartbeat};
    return std::nullopt;
  }
  if (last_change_ && now - *last_change_ < options_.min_interval) return std::nullopt;  // flapping
  if (want->problem && written_->problem) want->change = ConditionChange::kCauseChanged;
  return want;
}

void ConditionPolicy::confirm(const ConditionWrite& write, MonoTime now) {
  const bool change = !written_ || written_->problem != write.problem || written_->cause != write.cause;
  written_ = write;
  last_write_ = now;
  if (change) last_change_ = now;
}

bool node_level(Advice advice) { return advice != Advice::kNone && advice != Advice::kFixPod; }

ConditionVerdict repair_verdict(const ConditionVerdict& v) {
  ConditionVerdict out;
  out.has_verdict = v.has_verdict;
  out.blind = v.blind;
  if (v.status != Status::kHealthy && v.top && node_level(v.top_advice)) {
    out.status = Status::kAtRisk;
    out.top = v.top;
    out.top_severity = Severity::kCritical;
    out.top_advice = v.top_advice;
  }
  return out;
}

std::string condition_reason(std::optional<CauseId> cause) {
  if (!cause) return "PLEGHealthy";
  std::string out;
  bool upper = true;
  for (const char* p = cause_name(*cause); *p; ++p) {
    if (*p == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(*p))) : *p;
    upper = false;
  }
  return out;
}

}  // namespace plegscope
