#pragma once
// The kernel's hung-task reports as values: what the assembler
// (host/hung_task.h) makes of the kernel's lines, and the classes of kernel
// frames (classify_frame) that say what a task waits on.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace plegscope::host {

// What a kernel function says the task waits on.
enum class FrameClass { kStorage, kNetworkFs, kOverlayfs, kFreezer, kCgroup, kReclaim };
// The class's id in reports and evidence: "storage", "network_fs", ...
constexpr const char* frame_class_name(FrameClass c) {
  switch (c) {
    case FrameClass::kStorage: return "storage";
    case FrameClass::kNetworkFs: return "network_fs";
    case FrameClass::kOverlayfs: return "overlayfs";
    case FrameClass::kFreezer: return "freezer";
    case FrameClass::kCgroup: return "cgroup";
    case FrameClass::kReclaim: return "reclaim";
  }
  return "";
}

struct HungTaskReport {
  std::string comm;             // "containerd-shim", "kworker/u8:0"
  int64_t pid = 0;              // the task: a thread's own id when it is a thread
  int64_t tgid = 0;             // its process, when the task line names it (6.7 on); 0 otherwise
  int64_t blocked_seconds = 0;  // "for more than N seconds": a lower bound (the threshold on old kernels)
  std::string kernel;           // "6.1.0-13-amd64" when the report names it
  std::vector<std::string> frames;    // innermost first, without offsets; "? " (unreliable) frames left out
  std::vector<FrameClass> classes;    // distinct, in the order the frames first show them
  size_t line = 0;                    // index of its header line among the lines fed
  int64_t realtime_usec = 0;          // when its header line was logged; 0 when not known
  // The trace ended early: cut by the frame or byte bound, by a pause in
  // the kernel's output, by another report, or lines of it were suppressed.
  bool truncated = false;
};

inline constexpr size_t kMaxHungTaskFrames = 64;
inline constexpr size_t kMaxHungTaskFrameBytes = 4096;  // the frames' names together

}  // namespace plegscope::host
