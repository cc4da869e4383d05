#pragma once
// Fans the model's state changes out to GetContainerEvents streams. Each
// stream has its own bounded queue (oldest dropped when full), so a stalled
// client never blocks the model. Thread-safe.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "cri_convert.h"
#include "node_model.h"

namespace fakecri {

class EventBus {
 public:
  static constexpr size_t kQueueCapacity = 100'000;

  class Subscription {
   public:
    // Next event, or nullopt after `timeout` or once the bus shut down.
    std::optional<cri::ContainerEventResponse> next(Duration timeout);
    uint64_t dropped() const;

   private:
    friend class EventBus;
    void push(const cri::ContainerEventResponse& e);
    void close();
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<cri::ContainerEventResponse> queue_;
    uint64_t dropped_ = 0;
    bool closed_ = false;
  };

  std::shared_ptr<Subscription> subscribe();
  void publish(const ModelEvent& event);  // converts only if someone listens
  void shutdown();                        // wakes and closes every stream
  size_t subscribers() const;
  uint64_t published() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::weak_ptr<Subscription>> subs_;
  uint64_t published_ = 0;
  bool shutdown_ = false;
};

}  // namespace fakecri
