#pragma once
// The last N items of a stream, oldest first: relists for the timeline,
// lifecycle events for /debug/events.
#include <deque>
#include <mutex>
#include <vector>

namespace plegscope {

// Thread-safe.
template <typename T>
class BoundedHistory {
 public:
  explicit BoundedHistory(size_t capacity) : capacity_(capacity) {}

  void add(T item) {
    std::lock_guard<std::mutex> lock(mu_);
    items_.push_back(std::move(item));
    while (items_.size() > capacity_) items_.pop_front();
  }
  std::vector<T> snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {items_.begin(), items_.end()};
  }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<T> items_;
};

}  // namespace plegscope
