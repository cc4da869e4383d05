#pragma once
// An FdTask over a pipe for tests: its fd turns readable when poke() writes
// a byte, it is due at once while due_now is set, and every run is counted
// and can be waited for.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "common/fd_task.h"

namespace plegscope::testing {

class PipeTask final : public FdTask {
 public:
  PipeTask() { EXPECT_EQ(::pipe2(fds_, O_CLOEXEC | O_NONBLOCK), 0); }
  ~PipeTask() override {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  void poke() {
    const char byte = 1;
    EXPECT_EQ(::write(fds_[1], &byte, 1), 1);
  }
  int fd() const override { return fds_[0]; }
  Duration until_due() const override {
    return due_now ? Duration::zero() : Duration(std::chrono::hours(1));
  }
  void run() override {
    char byte;
    while (::read(fds_[0], &byte, 1) == 1) {
    }
    due_now = false;
    if (on_run) on_run();
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++runs_;
    }
    ran_.notify_all();
  }
  int runs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return runs_;
  }
  // True when at least n runs happened within the timeout (which bounds a failure only).
  bool wait_runs(int n, std::chrono::seconds timeout = std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> lock(mu_);
    return ran_.wait_for(lock, timeout, [&] { return runs_ >= n; });
  }

  std::atomic<bool> due_now{false};
  std::function<void()> on_run;  // set before the task is served

 private:
  int fds_[2] = {-1, -1};
  mutable std::mutex mu_;
  std::condition_variable ran_;
  int runs_ = 0;
};

}  // namespace plegscope::testing
