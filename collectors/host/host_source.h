#pragma once
// Host evidence below the CRI (blocked helpers, zombies, pid limits, the
// runtime root's disk, and with --kernel-stacks the kernel stacks of the
// runtime's tasks in D), as a source: one long-lived scanner on the quick
// lane, every `interval`, and at once when a CRI call passes the hang
// threshold, so that the evidence of a hang is read while it lasts.
// evidence() copies the latest scan, never scans.
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/source.h"
#include "host/host_scanner.h"

namespace plegscope {

struct HostSourceOptions {
  bool enabled = true;  // off: no scan, the snapshot's host evidence stays empty
  std::string proc_path = "/proc";  // --proc-path (node pressure reads it too)
  std::string sys_path = "/sys";    // --sys-path
  std::string runtime_root;         // --runtime-root; "" = resolved from the daemons seen
  Duration interval = std::chrono::seconds(5);
  // --kernel-stacks: read the kernel stacks of the runtime's tasks in D with
  // a BPF task iterator, once per scan.
  bool kernel_stacks = false;
  long clock_ticks_per_second = 0;  // 0: the host's (tests: the fixture tree's)
  // Tests: a diskstats file taken 10 s before the first scan, so one scan
  // of a fixture tree has disk rates.
  std::string diskstats_before;
  // Not a flag: the node's CRI socket when its runtime is a containerd, ""
  // otherwise; shims of another containerd on the host are not its own.
  std::function<std::string()> runtime_socket;
};

// The latest scan and what the scans so far add to it.
struct HostObservation {
  std::optional<host::HostEvidence> scan;  // nullopt until the first scan (or when off)
  MonoTime scanned_at{};                   // when it ran, on the monotonic clock
  std::vector<int64_t> zombie_history;     // zombie counts per scan, oldest first, bounded
};

// What the scan asks of the CRI calls in flight, on the quick lane.
struct CallsInFlight {
  // The age of the oldest: past the hang threshold a scan runs at once,
  // once per hang.
  std::function<double()> oldest_seconds;
  // The pods with a call in flight: their cgroup limits and pressure are read.
  std::function<std::set<std::string>()> pod_uids;
};

// Thread-safe.
class HostSource final : public SourceOf<HostObservation> {
 public:
  HostSource(const HostSourceOptions& options, const Clock& clock, CallsInFlight calls, Duration hang_threshold);
  ~HostSource() override;

  std::string_view name() const override { return "host"; }
  bool enabled() const override { return scanner_ != nullptr; }
  void start(SourceLanes lanes) override;
  HostObservation evidence() const override;
  // pleg_host_* gauges of the latest scan.
  std::vector<prometheus::MetricFamily> Collect() const override;

  // One look on the calling thread: scans when due or when a hang began.
  void tick();

 private:
  void seed_diskstats(const std::string& path);

  const Clock& clock_;
  const CallsInFlight calls_;
  const Duration hang_threshold_, interval_;
  std::unique_ptr<host::HostScanner> scanner_;
  mutable std::mutex mu_;
  HostObservation latest_;
  // The quick lane's alone.
  MonoTime next_scan_{};
  bool hang_scanned_ = false;  // one on-demand scan per hang
};

}  // namespace plegscope
