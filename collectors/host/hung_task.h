#pragma once
// The kernel's hung-task reports, as its hung_task watchdog prints them and
// the journal keeps them (kernel transport, one line per entry):
//
//   INFO: task containerd-shim:4242 blocked for more than 120 seconds.
//         Not tainted 6.1.0-13-amd64 #1 Debian 6.1.55-1
//   "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
//   task:containerd-shim state:D stack:0 pid:4242 ppid:1 flags:0x00000000
//   Call Trace:
//    <TASK>
//    __schedule+0x351/0xa20
//    ...
//
// Older kernels print the task line as "NAME D ffff... 0 PID PPID 0x..."
// and frames as " [<ffffffff81829f55>] schedule+0x35/0x80", ARM as
// "[<807762c0>] (__schedule) from [<80776938>] (schedule+0x50/0xa8)". The
// header line is the one node-problem-detector matches; the frames say what
// the task waits on. A pure parser over lines; nothing here reads a file.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plegscope::host {

// What a kernel function says the task waits on.
enum class FrameClass { kStorage, kNetworkFs, kOverlayfs, kFreezer, kCgroup, kReclaim };
const char* frame_class_name(FrameClass c);  // "storage", "network_fs", ...
std::optional<FrameClass> classify_frame(std::string_view function);

struct HungTaskReport {
  std::string comm;             // "containerd-shim", "kworker/u8:0"
  int64_t pid = 0;
  int64_t blocked_seconds = 0;  // "for more than N seconds": the watchdog's threshold, a lower bound
  std::string kernel;           // "6.1.0-13-amd64" when the report names it
  std::vector<std::string> frames;    // innermost first, without offsets; "? " (unreliable) frames left out
  std::vector<FrameClass> classes;    // distinct, in the order the frames first show them
  size_t line = 0;                    // index of its header line in the input
};

// Every report in `lines` (each one printk line, with or without a
// "[ 5036.077565] " timestamp prefix). Frames are bounded per report.
std::vector<HungTaskReport> parse_hung_tasks(const std::vector<std::string>& lines);

inline constexpr size_t kMaxHungTaskFrames = 64;

}  // namespace plegscope::host
