#pragma once
// Time source injected into every collector, so tests step time by hand
// instead of sleeping (as the kubelet's PLEG tests do with a fake clock).
//
// Two times: the wall clock, only for what is exported or compared as a unix
// timestamp (pleg_last_seen_seconds, the runtime's created_at/finished_at,
// event times in reports); the monotonic clock for every interval, period,
// threshold and age, so a stepped wall clock (an ntpd step of hours) neither
// fires nor hides anything the agent decides.
#include <chrono>
#include <cstdint>
#include <condition_variable>
#include <mutex>

namespace plegscope {

using WallClock = std::chrono::system_clock;
using TimePoint = WallClock::time_point;
using MonotonicClock = std::chrono::steady_clock;
using MonoTime = MonotonicClock::time_point;
using Duration = std::chrono::nanoseconds;

// Thread-safe: implementations must allow concurrent calls.
class Clock {
 public:
  virtual ~Clock() = default;
  // Wall time: unix timestamps only.
  virtual TimePoint now() const = 0;
  // Monotonic time: intervals, periods, thresholds, ages.
  virtual MonoTime monotonic() const = 0;
  // Blocks on `cv` (whose mutex `lock` holds) until it is notified, wakes
  // spuriously, or monotonic() reaches `deadline`; the caller re-checks its
  // condition and the time. A fake clock wakes its waiters when stepped.
  virtual void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                          MonoTime deadline) const {
    cv.wait_until(lock, MonotonicClock::now() + (deadline - monotonic()));
  }
};

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return WallClock::now(); }
  MonoTime monotonic() const override { return MonotonicClock::now(); }
  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  MonoTime deadline) const override {
    cv.wait_until(lock, deadline);
  }
};

// The system's clock, for the few places that build a reader without a
// clock of their own (live tests, benchmarks). Stateless.
inline const Clock& system_clock() {
  static const SystemClock clock;
  return clock;
}

// Both clocks read together. place() puts a monotonic instant on the wall
// axis as it stood at this reading, so that the difference of two placed
// instants, or of one and `wall`, is a monotonic interval: a value that
// carries instants to a reader which only subtracts them (the diagnoser)
// stays immune to wall-clock steps, and the dates it shows are as close to
// the wall clock as the last step allows.
struct ClockReading {
  TimePoint wall{};
  MonoTime mono{};
  TimePoint place(MonoTime t) const {
    return wall - std::chrono::duration_cast<WallClock::duration>(mono - t);
  }
};
inline ClockReading read_clocks(const Clock& clock) { return {clock.now(), clock.monotonic()}; }

inline double to_seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
inline double unix_seconds(TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}
// CRI timestamps (created_at, started_at, finished_at) are unix nanoseconds.
inline TimePoint from_unix_nanos(int64_t nanos) {
  return TimePoint(std::chrono::duration_cast<WallClock::duration>(Duration(nanos)));
}

}  // namespace plegscope
