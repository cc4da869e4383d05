#include "common/fd_task.h"

#include <algorithm>

namespace plegscope {
void serve_task_if_ready(FdTask& task, const pollfd* task_fd) {
  const bool readable =
      task_fd && task_fd->fd >= 0 && (task_fd->revents & (POLLIN | POLLERR | POLLHUP));
  if (!readable && task.until_due() > Duration::zero()) return;
  if (task.running_) return;
  task.running_ = true;
  task.run();
  task.running_ = false;
}

int task_wait_ms(const FdTask& task, std::chrono::milliseconds cap) {
  const Duration left = std::max(task.until_due(), Duration::zero());
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left);
  return int(std::min(ms, cap).count());
}

}  // namespace plegscope
