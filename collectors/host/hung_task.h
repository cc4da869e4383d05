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

#include "host/hung_task_evidence.h"

namespace plegscope::host {

// What a kernel function says the task waits on, if anything.
std::optional<FrameClass> classify_frame(std::string_view function);

struct HungTaskAssemblerOptions {
  size_t max_reports = 16;  // the newest kept, the oldest go first; 0 keeps every one
  size_t max_frames = kMaxHungTaskFrames;
  size_t max_frame_bytes = kMaxHungTaskFrameBytes;
  // A report's lines are printed together: a longer pause between two of
  // them (by their log times) ends it, so a trace cut short never takes
  // frames of a later, unrelated trace.
  int64_t max_pause_usec = 5'000'000;
};

// Assembles reports from kernel lines fed one at a time, in the order the
// kernel printed them (the journal's kernel transport keeps one line per
// entry). Lines that belong to no report are skipped, so unrelated kernel
// lines between a report's lines do no harm. Bounded: the newest
// max_reports reports, each at most max_frames frames and max_frame_bytes.
class HungTaskAssembler {
 public:
  explicit HungTaskAssembler(HungTaskAssemblerOptions options = {});

  // One printk line, with or without a dmesg "[ 5036.077565] " prefix;
  // realtime_usec 0 when its time is not known.
  void feed(std::string_view line, int64_t realtime_usec = 0);

  // Oldest first; the last may still be taking frames.
  const std::vector<HungTaskReport>& reports() const { return reports_; }
  uint64_t reports_total() const { return reports_total_; }
  uint64_t reports_dropped() const { return reports_dropped_; }
  // The kernel said "Future hung task reports are suppressed" (its
  // kernel.hung_task_warnings ran out): from then on a hung task goes
  // unreported, so no report is no evidence of no hang. Its time, 0 if none.
  int64_t suppressed_since_usec() const { return suppressed_since_usec_; }
  bool reports_suppressed() const { return reports_suppressed_; }
  // Bumped by every change of the above, so a reader copies only on change.
  uint64_t generation() const { return generation_; }

 private:
  void finish();
  void open_report(HungTaskReport report, size_t index, int64_t realtime_usec);
  // A line of the open report: its kernel, its task's tgid, or a frame.
  void take_line(HungTaskReport& report, std::string_view line, int64_t realtime_usec);
  const HungTaskAssemblerOptions options_;
  std::vector<HungTaskReport> reports_;
  bool open_ = false;             // the last report still takes lines
  bool saw_call_trace_ = false;   // its "Call Trace:" line was seen
  size_t frame_bytes_ = 0;
  int64_t last_line_usec_ = 0;    // its latest line's time
  size_t lines_ = 0;
  uint64_t reports_total_ = 0, reports_dropped_ = 0, generation_ = 0;
  bool reports_suppressed_ = false;
  int64_t suppressed_since_usec_ = 0;
};

// Every report in `lines` (each one printk line, with or without a
// "[ 5036.077565] " timestamp prefix). Frames are bounded per report.
std::vector<HungTaskReport> parse_hung_tasks(const std::vector<std::string>& lines);

}  // namespace plegscope::host
