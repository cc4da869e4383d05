#pragma once
// Several periodic jobs on one thread. Every thread the agent starts is
// resident on every node (a stack, a TLS block, scheduler state); jobs that
// are short, independent and never wait on the runtime share one instead of
// each sleeping on its own. A job that can block (a CRI call, a read of
// /proc/PID/cmdline) does not belong here: it would delay the others.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/fd_task.h"

namespace plegscope {

// Thread-safe.
class PeriodicTasks {
 public:
  // `name` names the thread (/proc/PID/task/TID/comm, at most 15 bytes).
  PeriodicTasks(std::string name, const Clock& clock);
  ~PeriodicTasks();
  PeriodicTasks(const PeriodicTasks&) = delete;
  PeriodicTasks& operator=(const PeriodicTasks&) = delete;

  // Runs `job` at start() and then every `interval` after it ended (a slow
  // run delays only its own next run, never stacks). Only before start().
  void every(Duration interval, std::function<void()> job);
  // Also serves `task` (fd_task.h) on this thread: between jobs the thread
  // waits on the task's descriptor and deadline as well, and a job that
  // waits on sockets (an HTTP scrape) serves it from that wait when it passes
  // served_task() to its request. That wait is
  // poll()'s, in real time, whatever the clock. Only before start(); one task.
  void serve(FdTask& task);
  // The task serve() gave, for a job whose waits should serve it too (it
  // passes it to its HTTP requests); nullptr when there is none.
  FdTask* served_task() const { return task_; }
  bool empty() const;
  // Starts the thread, if there is a job.
  void start();
  // Wakes the thread at once and joins it after the job it is running.
  void stop();
  // Runs the jobs on the calling thread instead of one of its own, until
  // `sleep_until(next)`, which blocks until `next` or until told to end,
  // returns true (serve's main thread, idle otherwise, waits for a signal
  // that way).
  void run_here(const std::function<bool(MonoTime next)>& sleep_until);
  // Runs every job that is due now on the calling thread and returns when
  // the earliest next one is due (tests, and the thread's loop).
  MonoTime run_due();

 private:
  struct Job {
    Duration interval;
    std::function<void()> run;
    MonoTime due{};
  };
  void loop();
  // Waits, serving task_, until `next` (by clock_) or stop().
  void wait_serving_task(MonoTime next);

  const std::string name_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::vector<Job> jobs_;
  bool stopping_ = false;
  std::thread thread_;
  FdTask* task_ = nullptr;
  int wake_fd_ = -1;  // eventfd that stop() signals, for the wait on task_
};

}  // namespace plegscope
