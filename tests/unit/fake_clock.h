#pragma once
#include <atomic>

#include "common/clock.h"

namespace plegscope::testing {

// Stepped by hand; starts at a fixed, recognisable instant.
class FakeClock final : public Clock {
 public:
  FakeClock() : now_ns_(1'790'000'000LL * 1'000'000'000LL) {}
  TimePoint now() const override {
    return TimePoint(std::chrono::duration_cast<WallClock::duration>(Duration(now_ns_.load())));
  }
  void step(Duration d) { now_ns_ += d.count(); }

 private:
  std::atomic<int64_t> now_ns_;
};

}  // namespace plegscope::testing
