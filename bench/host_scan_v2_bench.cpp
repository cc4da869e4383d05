// CPU of one HostScanner::scan() on a cgroup v2 node (bench/synthetic_v2_node.h):
// at 110 and 1,000 pods (the kubelet's default max pods, and ten times it),
// with the v2 witness on (every pod's and container's freeze state, the
// runtime's and the kubelet's units, kubepods, five watched pods' limits
// and PSI) and, on the same /proc, with no v2 hierarchy (the witness reads
// nothing): the difference is the witness's cost. And the whole scan on a
// JVM-heavy node, 100,000 threads in 2,000 processes beside 110 pods: the
// goal is <= 50 ms CPU per scan.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <set>

#include "host/host_scanner.h"
#include "synthetic_v2_node.h"

using namespace plegscope::host;
using plegscope::bench::SyntheticV2Node;

namespace {

SyntheticV2Node& node(int pods, int jvm_processes = 0, int jvm_threads = 0) {
  static std::map<std::tuple<int, int, int>, std::unique_ptr<SyntheticV2Node>> nodes;
  auto& n = nodes[{pods, jvm_processes, jvm_threads}];
  if (!n) n = std::make_unique<SyntheticV2Node>(pods, jvm_processes, jvm_threads);
  return *n;
}

void run(benchmark::State& state, SyntheticV2Node& n, bool v2) {
  HostScanOptions options;
  options.proc_path = n.proc.string();
  // Without v2: a /sys with no cgroup2 mount, so the witness reads nothing.
  options.sys_path = v2 ? (n.root / "sys").string() : (n.root / "no-sys").string();
  options.clock_ticks_per_second = 100;
  options.cmdline_options.wait = std::chrono::seconds(5);
  HostScanner scanner(options);
  std::set<std::string> watched;
  for (int i = 0; i < 5; ++i) {
    char uid[40];
    std::snprintf(uid, sizeof uid, "%08x-0000-4000-8000-%012x", i, i);
    watched.insert(uid);
  }
  scanner.watch_pods(watched);
  HostEvidence first = scanner.scan();  // maps every shim (cmdline), as the agent's first scan does
  if (v2 && first.cgroup_v2.pods_read != state.range(0)) state.SkipWithError("synthetic v2 tree not read whole");
  HostEvidence last;
  for (auto _ : state) last = scanner.scan();
  state.counters["processes"] = static_cast<double>(last.processes.total);
  state.counters["threads"] = static_cast<double>(last.processes.threads);
  state.counters["pods_read"] = static_cast<double>(last.cgroup_v2.pods_read);
  state.counters["containers_read"] = static_cast<double>(last.cgroup_v2.containers.size());
}

void BM_HostScanV2(benchmark::State& state) { run(state, node(static_cast<int>(state.range(0))), true); }
void BM_HostScanWithoutV2(benchmark::State& state) { run(state, node(static_cast<int>(state.range(0))), false); }
void BM_HostScanJvmNode(benchmark::State& state) {
  run(state, node(static_cast<int>(state.range(0)), 2000, 100000), true);
}

}  // namespace

BENCHMARK(BM_HostScanWithoutV2)->Arg(110)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostScanV2)->Arg(110)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostScanJvmNode)->Arg(110)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
