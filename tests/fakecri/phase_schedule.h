#pragma once
// Which phase a scenario is in at a given time. Pure: time is passed in.
// Not thread-safe (the Simulator serialises access).
#include <optional>
#include <vector>

#include "clock.h"

namespace fakecri {

class PhaseSchedule {
 public:
  // durations[i] nullopt: phase i lasts forever. loop: after the last phase,
  // start again at phase 0.
  PhaseSchedule(std::vector<std::optional<Duration>> durations, bool loop, TimePoint start);

  // Advances to `now` and returns the current phase index.
  size_t advance(TimePoint now);
  // Jumps to phase `index`, starting it at `now`; hold=true stays there until
  // resume().
  void jump(size_t index, TimePoint now, bool hold);
  void resume(TimePoint now);

  size_t current() const { return index_; }
  bool held() const { return held_; }
  TimePoint phase_started() const { return started_; }

 private:
  std::vector<std::optional<Duration>> durations_;
  bool loop_;
  size_t index_ = 0;
  TimePoint started_;
  bool held_ = false;
};

}  // namespace fakecri
