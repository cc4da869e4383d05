#pragma once
// Do no harm: when the runtime struggles, the agent relists it less often.
// A pure decision from the outcomes of the last relists to the agent's own
// relist period. The kubelet relists the same runtime every second whatever
// happens; plegscope must not add to the load of a runtime that is drowning.
#include <array>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/grpc_codes.h"

namespace plegscope {

// How one relist went, as far as the runtime's load is concerned.
struct RelistOutcome {
  Duration duration{0};
  // Code of a failed list call that reached the runtime; kOk on success.
  // (A missing socket is not the runtime's load and is not reported here.)
  GrpcCode error_code = GrpcCode::kOk;
};

// Why the period is longer than the flag, for the gauge and /diagnose.
struct RelistStretch {
  Duration period{0};
  std::string reason;
};

// Not thread-safe: GenericPleg calls it under its own lock.
//
// Rule: a relist is "strained" when it took longer than the base period or a
// list call failed with DEADLINE_EXCEEDED or UNAVAILABLE. When at least
// kStrainedToStretch of the last kWindow relists were strained, the period
// doubles after each further strained relist (up to `max`); each relist that
// is not strained halves it again, down to the base. Worst case: a runtime
// that recovers waits one stretched period (at most `max`) for the next relist,
// then a halving per relist back to the base.
class RelistBackoff {
 public:
  static constexpr int kWindow = 5;
  static constexpr int kStrainedToStretch = 3;

  // `max` <= base turns stretching off.
  RelistBackoff(Duration base, Duration max);

  void record(const RelistOutcome& outcome);
  // The base (the flag, or evented mode's longer period) changed.
  void set_base(Duration base);

  Duration base() const { return base_; }
  Duration max() const { return max_; }
  // The period to wait before the next relist.
  Duration period() const { return period_; }
  // Set while the period is longer than the base.
  std::optional<RelistStretch> stretch() const;

 private:
  bool strained(const RelistOutcome& outcome) const;
  int strained_in_window() const;

  Duration base_;
  Duration max_;
  Duration period_;
  std::array<bool, kWindow> window_{};  // ring of the last relists: strained?
  int next_ = 0;
  int recorded_ = 0;
  RelistOutcome last_strained_;
};

}  // namespace plegscope
