#pragma once
// Time source for the simulated node. The model and the phase schedule read
// time only through the project's Clock, so unit tests step the unit tests'
// FakeClock (tests/unit/fake_clock.h) instead of sleeping. Thread-safe: now()
// may be called concurrently.
#include <chrono>
#include <cstdint>

#include "common/clock.h"

namespace fakecri {

// The project's clock interface.
using plegscope::Clock;
using plegscope::Duration;
using plegscope::SystemClock;
using plegscope::TimePoint;
using plegscope::to_seconds;
using plegscope::unix_seconds;

inline int64_t unix_nanos(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace fakecri
