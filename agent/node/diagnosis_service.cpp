#include "cached_diagnosis.h"

#include "common/metric_family.h"
#include "diagnosis_endpoint.h"

namespace plegscope {

std::map<CauseId, double> CachedDiagnosis::confidences() const {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = monitor_.clock().now();
  const uint64_t relists = monitor_.relist_count();
  const bool fresh = computed_at_ && relists == computed_for_relist_ && now - *computed_at_ < max_age_;
  if (!fresh) {
    cached_ = cause_confidences(current_report(monitor_));
    computed_at_ = now;
    computed_for_relist_ = relists;
    computed_count_++;
  }
  return cached_;
}

uint64_t CachedDiagnosis::computed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return computed_count_;
}

std::vector<prometheus::MetricFamily> CachedDiagnosis::Collect() const {
  auto family = gauge_family("pleg_diagnosis_cause",
                             "Confidence 0..1 of each /diagnose cause id right now; 0 when absent.");
  for (const auto& [id, confidence] : confidences()) add_gauge(family, {{"cause", cause_name(id)}}, confidence);
  return {family};
}

}  // namespace plegscope
