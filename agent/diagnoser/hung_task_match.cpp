#include "diagnoser/hung_task_match.h"

#include <chrono>

namespace plegscope {

KernelHungTask kernel_hung_task(const host::HungTaskReport& r) {
  KernelHungTask k;
  k.time = TimePoint(std::chrono::microseconds(r.realtime_usec));
  k.comm = r.comm;
  k.pid = r.pid;
  k.tgid = r.tgid;
  k.blocked_seconds = r.blocked_seconds;
  k.kernel = r.kernel;
  k.frames = r.frames;
  for (host::FrameClass c : r.classes) k.classes.push_back(host::frame_class_name(c));
  k.truncated = r.truncated;
  return k;
}

std::optional<KernelHungTask> hung_task_for(const Snapshot& s, int64_t pid) {
  if (!s.host) return std::nullopt;
  const auto& reports = s.journal.hung_tasks;
  for (auto it = reports.rbegin(); it != reports.rend(); ++it) {
    const host::HungTaskReport& r = *it;
    // The task the report names, among the process's tasks in D; the
    // process's longest in D when the report names the process as a whole.
    const host::BlockedTask* task = nullptr;
    const host::BlockedTask* longest = nullptr;
    for (const auto& b : s.host->processes.blocked) {
      if (b.pid != pid) continue;
      if (!longest || b.seconds_in_d > longest->seconds_in_d) longest = &b;
      if (b.tid == r.pid) task = &b;
    }
    if (!longest) return std::nullopt;
    if (!task && (r.pid == pid || (r.tgid != 0 && r.tgid == pid))) task = longest;
    if (!task) continue;
    KernelHungTask k = kernel_hung_task(r);
    if (s.host_scanned_at && r.realtime_usec > 0) {
      const TimePoint first_seen_in_d =
          *s.host_scanned_at - std::chrono::duration_cast<Duration>(std::chrono::duration<double>(task->seconds_in_d));
      if (k.time < first_seen_in_d) k.predates_stall_seconds = to_seconds(first_seen_in_d - k.time);
    }
    return k;
  }
  return std::nullopt;
}

}  // namespace plegscope
