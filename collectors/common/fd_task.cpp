#include "common/fd_task.h"

#include <algorithm>

namespace plegscope {
namespace {
thread_local FdTask* served_task = nullptr;
}  // namespace

FdTask* fd_task_of_this_thread() { return served_task; }

ServeOnThisThread::ServeOnThisThread(FdTask* task) : previous_(served_task) { served_task = task; }

ServeOnThisThread::~ServeOnThisThread() { served_task = previous_; }

void serve_task_if_ready(FdTask& task, const pollfd* task_fd) {
  const bool readable =
      task_fd && task_fd->fd >= 0 && (task_fd->revents & (POLLIN | POLLERR | POLLHUP));
  if (!readable && task.until_due() > Duration::zero()) return;
  ServeOnThisThread none(nullptr);
  task.run();
}

int task_wait_ms(const FdTask& task, std::chrono::milliseconds cap) {
  const Duration left = std::max(task.until_due(), Duration::zero());
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left);
  return int(std::min(ms, cap).count());
}

}  // namespace plegscope
