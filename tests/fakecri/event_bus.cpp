#include "event_bus.h"

#include <algorithm>

namespace fakecri {

std::optional<cri::ContainerEventResponse> EventBus::Subscription::next(Duration timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return closed_ || !queue_.empty(); });
  if (queue_.empty()) return std::nullopt;
  cri::ContainerEventResponse e = std::move(queue_.front());
  queue_.pop_front();
  return e;
}

uint64_t EventBus::Subscription::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void EventBus::Subscription::push(const cri::ContainerEventResponse& e) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    if (queue_.size() >= kQueueCapacity) {
      queue_.pop_front();
      ++dropped_;
    }
    queue_.push_back(e);
  }
  cv_.notify_one();
}

void EventBus::Subscription::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

std::shared_ptr<EventBus::Subscription> EventBus::subscribe() {
  auto sub = std::make_shared<Subscription>();
  std::lock_guard<std::mutex> lock(mu_);
  if (shutdown_) {
    sub->close();
  } else {
    subs_.push_back(sub);
  }
  return sub;
}

void EventBus::publish(const ModelEvent& event) {
  std::lock_guard<std::mutex> lock(mu_);
  ++published_;
  subs_.erase(std::remove_if(subs_.begin(), subs_.end(), [](const auto& w) { return w.expired(); }), subs_.end());
  if (subs_.empty()) return;
  cri::ContainerEventResponse proto;
  to_proto(event, &proto);
  for (const auto& w : subs_) {
    if (auto sub = w.lock()) sub->push(proto);
  }
}

void EventBus::shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  shutdown_ = true;
  for (const auto& w : subs_) {
    if (auto sub = w.lock()) sub->close();
  }
  subs_.clear();
}

size_t EventBus::subscribers() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& w : subs_) n += w.expired() ? 0 : 1;
  return n;
}

uint64_t EventBus::published() const {
  std::lock_guard<std::mutex> lock(mu_);
  return published_;
}

}  // namespace fakecri
