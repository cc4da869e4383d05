#pragma once
// pleg_diagnosis_cause for /metrics from a diagnosis computed at most once
// per relist, or once per `max_age` while no relist completes (a hung
// runtime), never once per scrape: a scrape then costs the same on a
// 10,000-container node as on an empty one, and 256 concurrent scrapers
// share one diagnosis instead of each running their own.
#include <prometheus/collectable.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "common/clock.h"
#include "diagnoser/diagnoser.h"
#include "monitor.h"

namespace plegscope {

// Thread-safe.
class CachedDiagnosis : public prometheus::Collectable {
 public:
  explicit CachedDiagnosis(Monitor& monitor, Duration max_age = std::chrono::seconds(1))
      : monitor_(monitor), max_age_(max_age) {}

  // pleg_diagnosis_cause{cause} for every cause id.
  std::vector<prometheus::MetricFamily> Collect() const override;
  // How many diagnoses were computed (for tests: scrapes do not each diagnose).
  uint64_t computed() const;

 private:
  std::map<CauseId, double> confidences() const;

  Monitor& monitor_;
  const Duration max_age_;
  mutable std::mutex mu_;  // held while computing, so concurrent scrapes wait for one result
  mutable std::map<CauseId, double> cached_;
  mutable std::optional<TimePoint> computed_at_;
  mutable uint64_t computed_for_relist_ = 0;
  mutable uint64_t computed_count_ = 0;
};

}  // namespace plegscope
