#pragma once
// The host scan: reads the evidence host/host_evidence.h holds (the
// runtime's helper processes and which of them, or their threads, sit in
// uninterruptible sleep, zombies by parent, the PID limits that bind the
// runtime, the latency of the disk under the runtime's root). One scan reads
// <proc>/<pid>/stat for every process, plus a few files per runtime process;
// each part that cannot be read says why in its `unreadable` field and the
// rest is still filled.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/clock.h"
#include "host/cgroup_v2_evidence.h"
#include "host/cgroup_v2_reader.h"
#include "host/cmdline_reader.h"
#include "host/diskstats.h"
#include "host/host_evidence.h"
#include "host/kernel_stacks.h"
#include "host/wchan_access.h"

namespace plegscope::host {

// The scanner's options; the host source's (host_source.h) are these and
// its schedule, so each path is held once, where its flag binds it.
struct HostScanOptions {
  std::string proc_path = "/proc";  // --proc-path (node pressure and CRI-O's pages read it too)
  std::string sys_path = "/sys";    // --sys-path
  // The runtime's root directory on the host (--runtime-root; "" =
  // resolve_runtime_root()).
  std::string runtime_root;
  long clock_ticks_per_second = 0;  // 0: sysconf(_SC_CLK_TCK)
  enum class Cmdline { kOffThread, kSkip } cmdline = Cmdline::kOffThread;
  CmdlineReader::Options cmdline_options;
  size_t top_zombie_parents = 5;
  size_t top_daemon_children = 8;
  // The agent's own credentials, against which a hidden wchan is explained.
  std::string self_status_path = "/proc/self/status";
  // --kernel-stacks: the reader of the blocked tasks' kernel stacks, asked
  // once per scan for the runtime's tasks in D only; null with the reason
  // it could not be opened in kernel_stacks_unavailable.
  bool kernel_stacks_enabled = false;
  std::shared_ptr<KernelStackReader> kernel_stack_reader;
  std::string kernel_stacks_unavailable;
  // The socket of the containerd the agent watches (its CRI endpoint), asked
  // once per scan; "" when the watched runtime is not a containerd (then
  // every shim counts). A shim whose -address names another socket serves
  // another containerd on this host (Docker's beside the kubelet's, a second
  // test cluster): it and the runc under it are left out of the scan.
  std::function<std::string()> runtime_socket;
};

// The runtime's root: that of a daemon seen running (dockerd ->
// /var/lib/docker, else crio -> /var/lib/containers/storage, else containerd
// -> /var/lib/containerd), else the first that `exists` of
// /var/lib/containerd, /var/lib/containers/storage, /var/lib/docker. "" when
// none. Symlinks are not followed (the path is matched against mountinfo).
std::string resolve_runtime_root(const std::vector<std::string>& daemon_comms,
                                 const std::function<bool(const std::string&)>& exists);

class StatFiles;

// Thread-safe: scan() holds an internal mutex (scans are serialized, so the
// periodic scan and an on-demand one never interleave). Cost: one listing of
// <proc> and one stat read per process (the main thread's, from a file kept
// open between scans on procfs: host/stat_files.h), plus the task/ listing
// and a stat read per thread of the runtime's processes only; wchan,
// status and cgroup reads only for what the evidence names (tasks in D,
// zombie parents, daemons). docs/host-scan.md lists every read.
class HostScanner {
 public:
  // Time (the seconds a task has been in D, the disk's rates) is read from
  // `clock`'s monotonic side only.
  explicit HostScanner(HostScanOptions options, const Clock& clock = system_clock());
  ~HostScanner();

  HostEvidence scan();

  // The diskstats sample the next scan computes rates against, as if a scan
  // had read it at `taken` (tests and scenarios feed two samples this way).
  void set_previous_diskstats(std::vector<DiskCounters> sample, MonoTime taken);

  // The pods (uids) whose cgroup v2 limits and pressure the next scans read
  // beside every pod's freeze state: those with a pending or hung call.
  void watch_pods(std::set<std::string> uids);

 private:
  struct ScanState;  // one scan's process table (host_scanner.cpp)
  struct TaskKey {
    int64_t pid, tid;
    uint64_t starttime;
    bool operator<(const TaskKey& o) const {
      return std::tie(pid, tid, starttime) < std::tie(o.pid, o.tid, o.starttime);
    }
  };
  bool read_processes(HostEvidence& out, ScanState& st);
  void resolve_helpers(HostEvidence& out, ScanState& st);
  void scan_blocked(HostEvidence& out, ScanState& st);
  BlockedTask blocked_task(ScanState& st, const HelperProcess& h, uint64_t starttime, int64_t tid,
                           const std::string& comm, const std::string& wchan_path);
  void scan_zombie_parents(HostEvidence& out, const ScanState& st);
  void scan_daemon_children(HostEvidence& out, const ScanState& st) const;
  // A process's age at the scan, from its start time (clock ticks after
  // boot); nullopt without <proc>/uptime.
  std::optional<double> age_of(const ScanState& st, uint64_t starttime) const;
  void scan_system_bus(HostEvidence& out, const ScanState& st);
  void scan_cgroup_v2(HostEvidence& out, ScanState& st);
  void add_frozen_helpers(HostEvidence& out, ScanState& st);
  void read_kernel_stacks(HostEvidence& out);
  void scan_disk(HostEvidence& out, const std::vector<std::string>& daemons);
  void scan_pid_limits(HostEvidence& out, const std::vector<std::pair<int64_t, std::string>>& daemons);

  const HostScanOptions options_;
  const Clock& clock_;
  const long ticks_;
  std::unique_ptr<CmdlineReader> cmdline_;
  std::mutex mu_;
  std::unique_ptr<StatFiles> stat_files_;
  std::map<TaskKey, MonoTime> first_seen_in_d_;
  std::map<TaskKey, MonoTime> first_seen_bus_stalled_;
  std::optional<std::vector<DiskCounters>> previous_disk_;
  MonoTime previous_disk_at_{};
  CgroupV2Reader cgroup_v2_;
  std::set<std::string> watched_pods_;
};

}  // namespace plegscope::host
