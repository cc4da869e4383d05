#pragma once
// Time source for the simulated node. The model and the phase schedule read
// time only through this interface, so unit tests step a ManualClock instead
// of sleeping. Thread-safe: now() may be called concurrently.
#include <atomic>
#include <chrono>
#include <cstdint>

#include "common/clock.h"

namespace fakecri {

// The project's clock interface; the fake adds a hand-stepped one for tests.
using plegscope::Clock;
using plegscope::Duration;
using plegscope::SystemClock;
using plegscope::TimePoint;
using plegscope::to_seconds;
using plegscope::unix_seconds;

// Test clock: starts at a fixed instant and moves only when told.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start = TimePoint(std::chrono::seconds(1'700'000'000)))
      : ns_(start.time_since_epoch().count()) {}
  TimePoint now() const override { return TimePoint(TimePoint::duration(ns_.load())); }
  // The simulated node has one time: monotonic moves with the wall clock.
  plegscope::MonoTime monotonic() const override {
    return plegscope::MonoTime(
        std::chrono::duration_cast<plegscope::MonoTime::duration>(TimePoint::duration(ns_.load())));
  }
  void advance(Duration d) { ns_ += std::chrono::duration_cast<TimePoint::duration>(d).count(); }

 private:
  std::atomic<TimePoint::rep> ns_;
};

inline int64_t unix_nanos(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace fakecri
