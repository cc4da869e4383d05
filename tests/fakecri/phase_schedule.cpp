#include "phase_schedule.h"

namespace fakecri {

PhaseSchedule::PhaseSchedule(std::vector<std::optional<Duration>> durations, bool loop, TimePoint start)
    : durations_(std::move(durations)), loop_(loop), started_(start) {}

size_t PhaseSchedule::advance(TimePoint now) {
  if (held_) return index_;
  // Bounded: every step either consumes a positive duration or stops.
  while (durations_[index_] && now - started_ >= *durations_[index_]) {
    size_t next = index_ + 1;
    if (next == durations_.size()) {
      if (!loop_) break;
      next = 0;
    }
    started_ += std::chrono::duration_cast<TimePoint::duration>(*durations_[index_]);
    index_ = next;
  }
  return index_;
}

void PhaseSchedule::jump(size_t index, TimePoint now, bool hold) {
  index_ = index < durations_.size() ? index : durations_.size() - 1;
  started_ = now;
  held_ = hold;
}

void PhaseSchedule::resume(TimePoint now) {
  if (!held_) return;
  held_ = false;
  started_ = now;
}

}  // namespace fakecri
