#pragma once
// Time source for the simulated node. The model and the phase schedule read
// time only through this interface, so unit tests step a ManualClock instead
// of sleeping. Thread-safe: now() may be called concurrently.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace fakecri {

using TimePoint = std::chrono::system_clock::time_point;
using Duration = std::chrono::nanoseconds;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::system_clock::now(); }
};

// Test clock: starts at a fixed instant and moves only when told.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint start = TimePoint(std::chrono::seconds(1'700'000'000)))
      : ns_(start.time_since_epoch().count()) {}
  TimePoint now() const override { return TimePoint(TimePoint::duration(ns_.load())); }
  void advance(Duration d) { ns_ += std::chrono::duration_cast<TimePoint::duration>(d).count(); }

 private:
  std::atomic<TimePoint::rep> ns_;
};

inline int64_t unix_nanos(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
inline double unix_seconds(TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}
inline double to_seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace fakecri
