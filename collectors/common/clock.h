#pragma once
// Time source injected into every collector, so tests step time by hand
// instead of sleeping (as the kubelet's PLEG tests do with a fake clock).
#include <chrono>

namespace plegscope {

using WallClock = std::chrono::system_clock;
using TimePoint = WallClock::time_point;
using Duration = std::chrono::nanoseconds;

// Thread-safe: implementations must allow concurrent now().
class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return WallClock::now(); }
};

inline double to_seconds(Duration d) { return std::chrono::duration<double>(d).count(); }
inline double unix_seconds(TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace plegscope
