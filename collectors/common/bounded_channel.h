#pragma once
// A bounded multi-producer queue with a non-blocking send, the shape of the
// kubelet's buffered `chan *PodLifecycleEvent`: a full channel never blocks
// the relist, the caller counts the drop.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace plegscope {

// Thread-safe.
template <typename T>
class BoundedChannel {
 public:
  explicit BoundedChannel(size_t capacity) : capacity_(capacity) {}

  // False when the channel is full or closed; the item is not queued.
  bool try_send(T item) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_ || items_.size() >= capacity_) return false;
      items_.push_back(std::move(item));
    }
    cv_.notify_one();
    return true;
  }

  // Waits up to `timeout` for an item; nullopt on timeout or when closed and empty.
  std::optional<T> receive(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

  // Waits for an item; nullopt once closed and empty.
  std::optional<T> receive() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }

  std::optional<T> try_receive() { return receive(std::chrono::milliseconds(0)); }

  void close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return items_.size();
  }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> items_;
  bool closed_ = false;
};

}  // namespace plegscope
