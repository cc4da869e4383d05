#include "host/host_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "common/metric_family.h"

namespace plegscope {
namespace {

constexpr size_t kZombieHistory = 24;  // two minutes at the default 5 s

std::shared_ptr<host::KernelStackReader> open_kernel_stacks(host::HostScanOptions& scan) {
  scan.kernel_stacks_enabled = true;
  host::KernelStackReaderOpen opened = host::open_kernel_stack_reader();
  scan.kernel_stacks_unavailable = opened.unavailable;
  if (opened.reader)
    spdlog::info("--kernel-stacks: the BPF task iterator is loaded; the kernel stacks of the runtime's tasks "
                 "in D are read once per host scan");
  else
    spdlog::warn("--kernel-stacks unavailable, falling back to wchan and the kernel's hung-task reports: {}",
                 opened.unavailable);
  return std::move(opened.reader);
}

}  // namespace

HostSource::HostSource(const Options& options, const SourceContext& context)
    : clock_(context.clock), hang_threshold_(context.hang_threshold), interval_(options.interval) {
  if (!options.enabled) return;
  host::HostScanOptions scan = options;
  // Asked once per scan, on the quick lane that also sets it in tick().
  scan.runtime_socket = [this] { return runtime_socket_; };
  if (options.kernel_stacks) scan.kernel_stack_reader = open_kernel_stacks(scan);
  scanner_ = std::make_unique<host::HostScanner>(std::move(scan), clock_);
  seed_diskstats(options.diskstats_before);
}

HostSource::~HostSource() = default;

void HostSource::seed_diskstats(const std::string& path) {
  if (path.empty()) return;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto sample = host::parse_diskstats(text.str());
  if (!sample) {
    spdlog::warn("host: {} is not a diskstats sample; ignored", path);
    return;
  }
  scanner_->set_previous_diskstats(std::move(*sample), clock_.monotonic() - std::chrono::seconds(10));
}

void HostSource::start(SourceLanes lanes) {
  if (scanner_) lanes.quick.every(std::chrono::seconds(1), [this] { tick(); });
}

void HostSource::tick() {
  if (!scanner_) return;
  HostScanAsks asks = asks_ ? asks_() : HostScanAsks{};
  const bool hang = asks.oldest_call_seconds > to_seconds(hang_threshold_);
  const bool on_demand = hang && !hang_scanned_;
  if (!hang) hang_scanned_ = false;
  if (!on_demand && clock_.monotonic() < next_scan_) return;
  scanner_->watch_pods(std::move(asks.pods_in_flight));
  runtime_socket_ = std::move(asks.runtime_socket);
  host::HostEvidence scan = scanner_->scan();
  const MonoTime now = clock_.monotonic();
  next_scan_ = now + interval_;
  if (on_demand) hang_scanned_ = true;
  std::lock_guard<std::mutex> lock(mu_);
  latest_.zombie_history.push_back(scan.processes.zombies);
  if (latest_.zombie_history.size() > kZombieHistory) latest_.zombie_history.erase(latest_.zombie_history.begin());
  latest_.scan = std::move(scan);
  latest_.scanned_at = now;
}

HostObservation HostSource::evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

std::vector<prometheus::MetricFamily> HostSource::Collect() const {
  std::optional<host::HostEvidence> h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    h = latest_.scan;
  }
  if (!h) return {};
  std::vector<prometheus::MetricFamily> families;
  auto blocked = gauge_family("pleg_host_blocked_processes",
                              "Runtime helper processes (shims, conmon, runc) with the process or a thread in state D.");
  std::vector<int64_t> pids;
  for (const auto& b : h->processes.blocked) pids.push_back(b.pid);
  std::sort(pids.begin(), pids.end());
  add_gauge(blocked, {}, static_cast<double>(std::unique(pids.begin(), pids.end()) - pids.begin()));
  families.push_back(blocked);
  if (h->processes.unreadable.empty()) {
    auto zombies = gauge_family("pleg_host_zombie_processes", "Processes in state Z.");
    add_gauge(zombies, {}, static_cast<double>(h->processes.zombies));
    families.push_back(zombies);
  }
  auto ratio = gauge_family("pleg_host_pids_usage_ratio", "pids.current / pids.max of the runtime's cgroup, "
                                                          "of kubepods, and of the node (pid_max, threads-max).");
  // One series per scope; the node's is the tighter of pid_max and threads-max.
  std::map<std::string, double> by_scope;
  for (const auto& l : h->pid_limits) {
    if (!l.ratio || !l.unreadable.empty()) continue;
    std::string scope = l.scope.rfind("node", 0) == 0 ? "node" : l.scope;
    by_scope[scope] = std::max(by_scope[scope], *l.ratio);
  }
  for (const auto& [scope, value] : by_scope) add_gauge(ratio, {{"scope", scope}}, value);
  if (!by_scope.empty()) families.push_back(ratio);
  if (const auto& disk = h->runtime_disk.value; disk && disk->latency_ms && disk->utilization) {
    auto latency = gauge_family("pleg_host_runtime_disk_latency_seconds",
                                "Mean time per completed IO on the runtime root's device over the last interval.");
    add_gauge(latency, {}, *disk->latency_ms / 1000);
    auto util = gauge_family("pleg_host_runtime_disk_utilization",
                             "Share of the last interval the runtime root's device was busy.");
    add_gauge(util, {}, *disk->utilization);
    families.push_back(latency);
    families.push_back(util);
  }
  return families;
}

}  // namespace plegscope
