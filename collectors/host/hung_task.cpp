#include "host/hung_task.h"

#include <algorithm>
#include <cctype>

#include "host/host_files.h"

namespace plegscope::host {
namespace {

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool starts(std::string_view s, std::string_view prefix) { return starts_with(s, prefix); }

// "[ 5036.077565] rest" -> "rest" (dmesg and kern.log keep the timestamp).
std::string_view without_timestamp(std::string_view s) {
  std::string_view t = s;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  if (!t.empty() && t.front() == '[') {
    size_t close = t.find(']');
    if (close != std::string_view::npos && close < 20) {
      bool stamp = close > 1;
      for (char ch : t.substr(1, close - 1)) stamp = stamp && (std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == ' ');
      if (stamp) return t.substr(close + 1);
    }
  }
  return s;
}

bool parse_int(std::string_view s, int64_t& out) {
  uint64_t v = 0;
  if (s.size() > 18 || !parse_u64(s, v)) return false;
  out = static_cast<int64_t>(v);
  return true;
}

// "INFO: task NAME:PID blocked for more than N seconds." (NAME may hold ':').
std::optional<HungTaskReport> header(std::string_view line) {
  line = trim(line);
  constexpr std::string_view kTask = "task ";
  constexpr std::string_view kBlocked = " blocked for more than ";
  size_t task = line.find(kTask);
  size_t blocked = line.find(kBlocked);
  if (task == std::string_view::npos || blocked == std::string_view::npos || blocked < task + kTask.size())
    return std::nullopt;
  std::string_view who = line.substr(task + kTask.size(), blocked - task - kTask.size());
  size_t colon = who.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  HungTaskReport r;
  if (!parse_int(who.substr(colon + 1), r.pid)) return std::nullopt;
  r.comm = std::string(who.substr(0, colon));
  std::string_view rest = line.substr(blocked + kBlocked.size());
  size_t space = rest.find(' ');
  if (space == std::string_view::npos || !parse_int(rest.substr(0, space), r.blocked_seconds)) return std::nullopt;
  return r;
}

bool valid_function(std::string_view fn) {
  if (fn.empty() || fn.size() > 128) return false;
  for (char ch : fn)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.')) return false;
  return true;
}

// The function of a frame line, or "" when the line is no frame (or an
// unreliable "? " one).
std::string_view frame_function(std::string_view line) {
  line = trim(line);
  if (starts(line, "[<")) {  // " [<ffffffff81829f55>] schedule+0x35/0x80", ARM "[<..>] (__schedule) from ..."
    size_t close = line.find(">]");
    if (close == std::string_view::npos) return {};
    line = trim(line.substr(close + 2));
    if (starts(line, "(")) {  // ARM: the function alone, maybe with its offset or its module
      size_t end = line.find(')');
      if (end == std::string_view::npos) return {};
      line = line.substr(1, end - 1);
      line = line.substr(0, std::min(line.find("+0x"), line.find(' ')));
      return valid_function(line) ? line : std::string_view();
    }
  }
  if (starts(line, "? ")) return {};
  size_t plus = line.find("+0x");
  if (plus == std::string_view::npos) return {};
  std::string_view fn = line.substr(0, plus);
  return valid_function(fn) ? fn : std::string_view();
}

// "Not tainted 6.1.0-13-amd64 #1 ..." / "Tainted: G   C  4.14.79-v7+ #1159"
std::string kernel_of(std::string_view line) {
  line = trim(line);
  if (!starts(line, "Not tainted ") && !starts(line, "Tainted:")) return "";
  size_t hash = line.find(" #");
  std::string_view before = line.substr(0, hash);
  size_t space = before.rfind(' ');
  return std::string(space == std::string_view::npos ? before : before.substr(space + 1));
}

}  // namespace

std::optional<FrameClass> classify_frame(std::string_view f) {
  if (has(f, "refrigerator") || has(f, "freezer") || has(f, "do_freeze") || has(f, "try_to_freeze"))
    return FrameClass::kFreezer;
  if (starts(f, "ovl_")) return FrameClass::kOverlayfs;
  if (starts(f, "nfs") || starts(f, "rpc_") || has(f, "sunrpc") || starts(f, "cifs_") || starts(f, "smb2_") ||
      starts(f, "ceph_") || starts(f, "fuse_") || starts(f, "p9_") || starts(f, "v9fs_"))
    return FrameClass::kNetworkFs;
  if (starts(f, "shrink_") || has(f, "try_to_free") || has(f, "reclaim") || has(f, "alloc_pages_slowpath") ||
      starts(f, "balance_pgdat") || starts(f, "out_of_memory") || has(f, "compact_zone"))
    return FrameClass::kReclaim;
  if (has(f, "cgroup") || starts(f, "css_")) return FrameClass::kCgroup;
  if (starts(f, "io_schedule") || starts(f, "blk_") || starts(f, "jbd2") || starts(f, "ext4_") ||
      starts(f, "xfs_") || starts(f, "btrfs_") || has(f, "wait_on_page") || starts(f, "folio_wait") ||
      starts(f, "__folio_lock") || starts(f, "__lock_page") || starts(f, "submit_bio") ||
      starts(f, "wait_for_completion_io") || starts(f, "wb_") || starts(f, "writeback_") ||
      has(f, "fdatawait") || has(f, "sync_inodes") || starts(f, "sync_fs") || starts(f, "iterate_supers") ||
      starts(f, "scsi_") || starts(f, "dm_") || starts(f, "nvme_") || starts(f, "bit_wait_io") ||
      starts(f, "__sync_dirty_buffer") || starts(f, "mpage_"))
    return FrameClass::kStorage;
  return std::nullopt;
}

HungTaskAssembler::HungTaskAssembler(HungTaskAssemblerOptions options) : options_(options) {}

void HungTaskAssembler::finish() {
  open_ = false;
  saw_call_trace_ = false;
  frame_bytes_ = 0;
}

void HungTaskAssembler::feed(std::string_view raw, int64_t realtime_usec) {
  const size_t index = lines_++;
  std::string_view line = trim(without_timestamp(raw));
  if (open_ && realtime_usec > 0 && last_line_usec_ > 0 && realtime_usec - last_line_usec_ > options_.max_pause_usec) {
    // A pause: the kernel prints a report in one go, so the rest is lost.
    if (reports_.back().frames.empty()) reports_.back().truncated = true;
    finish();
  }
  if (auto h = header(line)) {
    open_report(std::move(*h), index, realtime_usec);
    return;
  }
  if (has(line, "Future hung task reports are suppressed")) {
    finish();
    if (!reports_suppressed_) {
      reports_suppressed_ = true;
      suppressed_since_usec_ = realtime_usec;
      ++generation_;
    }
    return;
  }
  if (open_) take_line(reports_.back(), line, realtime_usec);
}

void HungTaskAssembler::open_report(HungTaskReport report, size_t index, int64_t realtime_usec) {
  if (open_ && reports_.back().frames.empty()) reports_.back().truncated = true;
  finish();
  report.line = index;
  report.realtime_usec = realtime_usec;
  reports_.push_back(std::move(report));
  ++reports_total_;
  if (options_.max_reports > 0 && reports_.size() > options_.max_reports) {
    reports_.erase(reports_.begin());
    ++reports_dropped_;
  }
  open_ = true;
  last_line_usec_ = realtime_usec;
  ++generation_;
}

void HungTaskAssembler::take_line(HungTaskReport& r, std::string_view line, int64_t realtime_usec) {
  // Lines were lost: printk's rate limit ("hung_task: 3 callbacks
  // suppressed", "printk: 12 messages suppressed"), its ring overwritten
  // before it was read ("** 12 printk messages dropped **"), or journald
  // missing records of /dev/kmsg ("Missed 12 kernel messages", its own
  // line): some of this trace may be missing.
  if (has(line, " callbacks suppressed") || has(line, " messages suppressed") ||
      has(line, " printk messages dropped") || (starts(line, "Missed ") && has(line, " kernel messages"))) {
    if (!r.truncated) ++generation_;
    r.truncated = true;
    return;
  }
  if (line == "</TASK>") {  // the kernel stack ends; user registers may follow
    finish();
    return;
  }
  // Another report of the kernel's begins: this one is over.
  if ((line == "Call Trace:" && saw_call_trace_) || starts(line, "------------[ cut here ]") ||
      starts(line, "WARNING:") || starts(line, "BUG:") || starts(line, "Oops") || starts(line, "Kernel panic") ||
      starts(line, "INFO: ") || starts(line, "Showing all locks held") || starts(line, "NMI backtrace")) {
    finish();
    return;
  }
  last_line_usec_ = realtime_usec > 0 ? realtime_usec : last_line_usec_;
  if (line == "Call Trace:") {
    saw_call_trace_ = true;
    return;
  }
  if (r.kernel.empty() && r.frames.empty()) {
    std::string k = kernel_of(line);
    if (!k.empty()) {
      r.kernel = std::move(k);
      ++generation_;
      return;
    }
  }
  if (r.tgid == 0 && r.frames.empty() && starts(line, "task:")) {  // "task:runc state:D ... pid:5301 tgid:5297 ppid:..."
    if (size_t at = line.find(" tgid:"); at != std::string_view::npos) {
      std::string_view rest = trim(line.substr(at + 6));
      int64_t tgid = 0;
      if (parse_int(rest.substr(0, rest.find(' ')), tgid)) {
        r.tgid = tgid;
        ++generation_;
      }
    }
    return;
  }
  std::string_view fn = frame_function(line);
  if (fn.empty()) return;
  if (r.frames.size() >= options_.max_frames || frame_bytes_ + fn.size() > options_.max_frame_bytes) {
    if (!r.truncated) ++generation_;
    r.truncated = true;
    return;
  }
  frame_bytes_ += fn.size();
  r.frames.emplace_back(fn);
  if (auto c = classify_frame(fn); c && std::find(r.classes.begin(), r.classes.end(), *c) == r.classes.end())
    r.classes.push_back(*c);
  ++generation_;
}

std::vector<HungTaskReport> parse_hung_tasks(const std::vector<std::string>& lines) {
  HungTaskAssemblerOptions o;
  o.max_reports = 0;  // every report
  HungTaskAssembler a(o);
  for (const auto& line : lines) a.feed(line);
  return a.reports();
}

}  // namespace plegscope::host
