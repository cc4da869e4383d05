// The kernel's hung-task reports in words (host/hung_task.h classifies
// their frames; the diagnoser ties them to blocked processes).
#include "report/format.h"
#include "report/wording.h"

namespace plegscope {
namespace {

// The scheduler's own frames say only that the task sleeps.
bool scheduler_frame(const std::string& f) {
  return f == "__schedule" || f == "schedule" || f == "schedule_timeout" || f == "schedule_preempt_disabled" ||
         f == "io_schedule" || f == "io_schedule_timeout" || f == "__switch_to" || f == "__switch_to_asm";
}

// The frames that tell what the task waits on: from the first one
// classified (or the first past the scheduler), a few.
std::string telling_frames(const KernelHungTask& k) {
  constexpr size_t kShown = 4;
  size_t from = k.frames.size();
  for (size_t i = 0; i < k.frames.size() && from == k.frames.size(); ++i)
    if (!scheduler_frame(k.frames[i])) from = i;
  std::string out;
  for (size_t i = from, shown = 0; i < k.frames.size() && shown < kShown; ++i, ++shown)
    out += (shown ? ", " : "") + k.frames[i];
  return out;
}

std::string classes_words(const std::vector<std::string>& classes) {
  std::string out;
  for (size_t i = 0; i < classes.size(); ++i)
    out += (i == 0 ? "" : i + 1 == classes.size() ? " and " : ", ") + frame_class_words(classes[i]);
  return out;
}

}  // namespace

std::string frame_class_words(const std::string& c) {
  if (c == "storage") return "local storage (block I/O, a journal commit or writeback)";
  if (c == "network_fs") return "a network filesystem (NFS/RPC, CIFS, FUSE or the like)";
  if (c == "overlayfs") return "overlayfs (a container's layered root filesystem)";
  if (c == "freezer") return "the freezer (the task is frozen)";
  if (c == "cgroup") return "a cgroup lock (cgroup migration, fork or css)";
  if (c == "reclaim") return "memory reclaim (the kernel freeing memory)";
  return c;
}

std::string hung_task_words(const KernelHungTask& k) {
  const std::string frames = telling_frames(k);
  std::string detail;
  if (!frames.empty()) detail = " (" + frames + (k.truncated ? ", trace cut short" : "") + ")";
  else if (k.truncated) detail = " (trace cut short)";
  const bool older = k.predates_stall_seconds.has_value();
  const std::string what = k.classes.empty() ? std::string(older ? "named" : "names") + " no wait plegscope knows" + detail
                                             : std::string(older ? "showed" : "shows") + " it waiting on " +
                                                   classes_words(k.classes) + detail;
  const std::string task = k.tgid != 0 && k.tgid != k.pid ? "thread " + std::to_string(k.pid) : "pid " + std::to_string(k.pid);
  const std::string said = "blocked for more than " + text::elapsed(static_cast<double>(k.blocked_seconds));
  if (older)
    return "an older kernel hung-task report on " + task + " (" + rfc3339(k.time) + ", " + said + "), printed " +
           text::elapsed(*k.predates_stall_seconds) + " before plegscope first saw it in D, " + what +
           "; it may tell of an earlier stall, not this one";
  return "the kernel's hung-task report on " + task + " (" + rfc3339(k.time) + ", " + said + ") " + what;
}

}  // namespace plegscope
