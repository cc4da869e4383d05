#include "common/periodic_tasks.h"

#include <algorithm>

#include "common/thread_name.h"

namespace plegscope {

PeriodicTasks::PeriodicTasks(std::string name, const Clock& clock) : name_(std::move(name)), clock_(clock) {}

PeriodicTasks::~PeriodicTasks() { stop(); }

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
  if (jobs_.empty() || thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void PeriodicTasks::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
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
    lock.lock();
    while (!stopping_ && clock_.monotonic() < next) clock_.wait_until(lock, wake_, next);
  }
}

}  // namespace plegscope
