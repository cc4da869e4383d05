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

// The scanner's own options (paths, clock ticks) and its schedule.
struct HostSourceOptions : host::HostScanOptions {
  bool enabled = true;  // off: no scan, the snapshot's host evidence stays empty
  Duration interval = std::chrono::seconds(5);
  // --kernel-stacks: read the kernel stacks of the runtime's tasks in D with
  // a BPF task iterator, once per scan.
  bool kernel_stacks = false;
  // Tests: a diskstats file taken 10 s before the first scan, so one scan
  // of a fixture tree has disk rates.
  std::string diskstats_before;
};
// --proc-path, --sys-path, --runtime-root, --kernel-stacks and the hidden
// fixture flags (host_flags.cpp).
void add_flags(CLI::App& app, HostSourceOptions& options);

// The latest scan and what the scans so far add to it.
struct HostObservation {
  std::optional<host::HostEvidence> scan;  // nullopt until the first scan (or when off)
  MonoTime scanned_at{};                   // when it ran, on the monotonic clock
  std::vector<int64_t> zombie_history;     // zombie counts per scan, oldest first, bounded
};

// What the scan needs from the rest of the node, asked on the quick lane
// before each look and answered by a pure join over the CRI calls in flight
// and the runtime's name (agent/node/source_joins.h).
struct HostScanAsks {
  // The age of the oldest CRI call in flight: past the hang threshold a scan
  // runs at once, once per hang.
  double oldest_call_seconds = 0;
  // The pods with a call in flight: their cgroup limits and pressure are read.
  std::set<std::string> pods_in_flight;
  // The node's CRI socket when its runtime is a containerd, "" otherwise:
  // shims of another containerd on the host are not this node's.
  std::string runtime_socket;
};

// Thread-safe.
class HostSource final : public SourceOf<HostObservation> {
 public:
  using Options = HostSourceOptions;
  using Asks = std::function<HostScanAsks()>;
  HostSource(const Options& options, const SourceContext& context);
  ~HostSource() override;
  // Where the scan's needs are answered; set before start(). None: no call
  // is ever hung, no pod watched, every shim counts.
  void ask_with(Asks asks) { asks_ = std::move(asks); }

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
  Asks asks_;
  const Duration hang_threshold_, interval_;
  std::unique_ptr<host::HostScanner> scanner_;
  mutable std::mutex mu_;
  HostObservation latest_;
  // The quick lane's alone.
  MonoTime next_scan_{};
  bool hang_scanned_ = false;  // one on-demand scan per hang
  std::string runtime_socket_;  // the last answer's, read by the scan
};

}  // namespace plegscope
