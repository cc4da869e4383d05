#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <utility>
#include <vector>

#include "common/clock.h"

namespace plegscope::testing {

// Stepped by hand; starts at a fixed, recognisable instant. Wall and
// monotonic time move together unless step_wall() steps the wall clock alone
// (an ntpd step). Waiters in wait_until() are woken by every step, so a
// runner on this clock waits exactly as long as the test says. Thread-safe.
class FakeClock final : public Clock {
 public:
  FakeClock() : wall_ns_(1'790'000'000LL * 1'000'000'000LL), mono_ns_(1'000'000'000'000LL) {}
  TimePoint now() const override {
    return TimePoint(std::chrono::duration_cast<WallClock::duration>(Duration(wall_ns_.load())));
  }
  MonoTime monotonic() const override {
    return MonoTime(std::chrono::duration_cast<MonotonicClock::duration>(Duration(mono_ns_.load())));
  }
  void step(Duration d) {
    wall_ns_ += d.count();
    mono_ns_ += d.count();
    wake_waiters();
  }
  // The wall clock alone jumps (forward or back); monotonic time does not.
  void step_wall(Duration d) { wall_ns_ += d.count(); }

  void wait_until(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                  MonoTime deadline) const override {
    Waiter me{lock.mutex(), &cv};
    {
      std::lock_guard<std::mutex> g(waiters_mu_);
      waiters_.push_back(me);
      waits_++;
    }
    waits_cv_.notify_all();
    // Registered before the time is read: a step either moved the time
    // before this check, or finds this waiter and, taking its mutex before
    // notifying, cannot notify before cv.wait released it.
    if (monotonic() < deadline) cv.wait(lock);
    std::lock_guard<std::mutex> g(waiters_mu_);
    waiters_.erase(std::find(waiters_.begin(), waiters_.end(), me));
  }
  // How many waits began on this clock so far; a test reads it, acts, then
  // waits for the next one to know the runner is blocked again.
  size_t waits() const {
    std::lock_guard<std::mutex> g(waiters_mu_);
    return waits_;
  }
  // Blocks (real time, bounded so a regression fails instead of hanging)
  // until at least `n` waits began. Returns whether they did.
  bool wait_for_waits(size_t n, std::chrono::seconds bound = std::chrono::seconds(60)) const {
    std::unique_lock<std::mutex> g(waiters_mu_);
    return waits_cv_.wait_for(g, bound, [&] { return waits_ >= n; });
  }

 private:
  struct Waiter {
    std::mutex* mu;
    std::condition_variable* cv;
    bool operator==(const Waiter& o) const { return mu == o.mu && cv == o.cv; }
  };
  void wake_waiters() {
    std::vector<Waiter> waiters;
    {
      std::lock_guard<std::mutex> g(waiters_mu_);
      waiters = waiters_;
    }
    for (const Waiter& w : waiters) {
      { std::lock_guard<std::mutex> g(*w.mu); }
      w.cv->notify_all();
    }
  }

  std::atomic<int64_t> wall_ns_;
  std::atomic<int64_t> mono_ns_;
  mutable std::mutex waiters_mu_;
  mutable std::vector<Waiter> waiters_;
  mutable size_t waits_ = 0;
  mutable std::condition_variable waits_cv_;
};

}  // namespace plegscope::testing
