#include "common/periodic_tasks.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/thread_name.h"

namespace plegscope {

PeriodicTasks::PeriodicTasks(std::string name, const Clock& clock) : name_(std::move(name)), clock_(clock) {}

PeriodicTasks::~PeriodicTasks() {
  stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void PeriodicTasks::serve(FdTask& task) {
  std::lock_guard<std::mutex> lock(mu_);
  task_ = &task;
  if (wake_fd_ < 0) wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

void PeriodicTasks::every(Duration interval, std::function<void()> job) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.push_back({interval, std::move(job), MonoTime{}});  // due at once
}

bool PeriodicTasks::empty() const {
  std::lock_guard<std::mutex> lock(mu_);
  return jobs_.empty();
}

void PeriodicTasks::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if ((jobs_.empty() && !task_) || thread_.joinable()) return;
  stopping_ = false;
  if (wake_fd_ >= 0) {
    uint64_t count;
    ssize_t got = ::read(wake_fd_, &count, sizeof(count));  // a stop() before this start
    (void)got;
  }
  thread_ = std::thread([this] { loop(); });
}

void PeriodicTasks::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    ssize_t written = ::write(wake_fd_, &one, sizeof(one));
    (void)written;  // a full counter already wakes the wait
  }
  if (thread_.joinable()) thread_.join();
}

MonoTime PeriodicTasks::run_due() {
  // The job list is fixed once the thread runs; jobs run outside the lock so
  // stop() is never held up by one.
  for (Job& job : jobs_) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
    }
    if (clock_.monotonic() < job.due) continue;
    job.run();
    job.due = clock_.monotonic() + job.interval;
  }
  MonoTime next = MonoTime::max();
  for (const Job& job : jobs_) next = std::min(next, job.due);
  return next;
}

void PeriodicTasks::run_here(const std::function<bool(MonoTime next)>& sleep_until) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
  }
  while (!sleep_until(run_due())) {
  }
}

void PeriodicTasks::loop() {
  name_this_thread(name_);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    MonoTime next = run_due();
    if (task_) {
      wait_serving_task(next);
      lock.lock();
      continue;
    }
    lock.lock();
    while (!stopping_ && clock_.monotonic() < next) clock_.wait_until(lock, wake_, next);
  }
}

void PeriodicTasks::wait_serving_task(MonoTime next) {
  // A wait of at most a minute between looks at the clock keeps a far (or
  // never) due job from overflowing poll's int.
  constexpr std::chrono::milliseconds kLongestWait{60000};
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    const Duration to_job = next - clock_.monotonic();
    if (to_job <= Duration::zero()) return;
    const auto job_ms = std::min(std::chrono::ceil<std::chrono::milliseconds>(to_job), kLongestWait);
    pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {task_->fd(), POLLIN, 0}};
    int r;
    do {
      r = ::poll(fds, fds[1].fd >= 0 ? 2 : 1, task_wait_ms(*task_, job_ms));
    } while (r < 0 && errno == EINTR);
    if (fds[0].revents & POLLIN) return;  // stop(): the loop sees stopping_
    serve_task_if_ready(*task_, &fds[1]);
  }
}

}  // namespace plegscope
