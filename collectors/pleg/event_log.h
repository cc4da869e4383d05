#pragma once
// The in-process consumer of PLEG events (the kubelet's syncLoop reads the
// same channel): keeps the last N for /debug/events and counts per pod.
#include <deque>
#include <mutex>
#include <vector>

#include "pleg/pleg.h"

namespace plegscope {

// Thread-safe.
class EventLog {
 public:
  explicit EventLog(size_t capacity = 1000) : capacity_(capacity) {}

  void add(PodLifecycleEvent event) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(event));
    while (events_.size() > capacity_) events_.pop_front();
  }
  // Oldest first.
  std::vector<PodLifecycleEvent> snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {events_.begin(), events_.end()};
  }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<PodLifecycleEvent> events_;
};

}  // namespace plegscope
