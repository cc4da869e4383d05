#pragma once
// Work that a thread does when a file descriptor turns readable or a time
// comes, between and during its other jobs. Each thread the agent starts is
// resident on every node; a follower that spends its life waiting on one
// descriptor (the journal's) can instead be served by a thread that already
// waits on others (the scrapes' sockets), as long as every wait of that
// thread includes the task's descriptor and deadline.
#include <poll.h>

#include <chrono>

#include "common/clock.h"

namespace plegscope {

class FdTask {
 public:
  virtual ~FdTask() = default;
  // The descriptor to wait on for reading; -1 when there is none now (the
  // task then waits for its deadline only). Asked again before every wait.
  virtual int fd() const = 0;
  // How long from now run() may wait at the longest (zero: run at once).
  virtual Duration until_due() const = 0;
  // Called when fd() was readable or until_due() passed, on the serving
  // thread only.
  virtual void run() = 0;

 private:
  friend void serve_task_if_ready(FdTask& task, const pollfd* task_fd);
  bool running_ = false;  // the serving thread's alone
};

// Runs the calling thread's task when `task_fd` (the entry for its fd() that
// the caller put in its poll set, or nullptr) was readable or when it is
// due. A task that is already running is not run again, so a wait inside
// its own run() never re-enters it.
void serve_task_if_ready(FdTask& task, const pollfd* task_fd);

// The longest a wait may block before the task is due, in milliseconds,
// at most `cap` (poll's and curl_multi_poll's unit; rounded up so a wait
// never spins on a sub-millisecond remainder).
int task_wait_ms(const FdTask& task, std::chrono::milliseconds cap);

}  // namespace plegscope
