// CPU cost of plegscope's own work per relist, without gRPC: grouping,
// the transition table, inspections against an in-memory runtime.
// Prints figures; nothing asserts on them.
#include <benchmark/benchmark.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "fake_clock.h"
#include "fake_runtime.h"
#include "pleg/generic_pleg.h"
#include "pleg/runtime_pods.h"

namespace plegscope {
namespace {

void fill(testing::FakeRuntime& rt, int pods, int containers_per_pod) {
  for (int p = 0; p < pods; ++p) {
    std::string uid = "uid-" + std::to_string(p);
    rt.add_sandbox("s-" + std::to_string(p), uid);
    for (int c = 0; c < containers_per_pod; ++c)
      rt.add_container("c-" + std::to_string(p) + "-" + std::to_string(c), uid,
                       cri::CONTAINER_RUNNING, "s-" + std::to_string(p));
  }
}

// One simulated node with its PLEG; the in-memory runtime's own filtering
// is linear per call, so inspection-heavy figures include it. Every
// container carries the runtime's timestamps, a few seconds old, so each
// event's lag is measured as on a real node.
struct Node {
  explicit Node(int pods, size_t channel)
      : metrics(registry), pleg(rt, clock, cache, metrics, GenericPlegOptions{channel, kGenericRelistTiming}) {
    fill(rt, pods, 2);
    const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            clock.now().time_since_epoch()).count();
    for (const auto& c : rt.containers)
      rt.times[c.id()] = {now - 3'000'000'000, now - 2'000'000'000, now - 1'000'000'000};
  }
  testing::FakeRuntime rt;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics;
  GenericPleg pleg;
};

// A steady node: nothing changes, so this is the fixed cost of one relist.
void BM_RelistSteady(benchmark::State& state) {
  Node node(static_cast<int>(state.range(0)), 100000);
  auto& rt = node.rt;
  auto& pleg = node.pleg;
  pleg.relist();
  while (pleg.watch().try_receive()) {}
  for (auto _ : state) pleg.relist();
  state.counters["containers"] = static_cast<double>(rt.containers.size());
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rt.containers.size()));
}
BENCHMARK(BM_RelistSteady)->Arg(50)->Arg(500)->Arg(5000)->Unit(benchmark::kMillisecond);

// Every container flips state each relist: the worst case, every pod inspected.
void BM_RelistEveryPodChanges(benchmark::State& state) {
  Node node(static_cast<int>(state.range(0)), 1000);
  auto& rt = node.rt;
  auto& pleg = node.pleg;
  bool running = true;
  for (auto _ : state) {
    running = !running;
    for (auto& c : rt.containers)
      c.set_state(running ? cri::CONTAINER_RUNNING : cri::CONTAINER_EXITED);
    pleg.relist();
    while (pleg.watch().try_receive()) {}
  }
  state.counters["containers"] = static_cast<double>(rt.containers.size());
}
BENCHMARK(BM_RelistEveryPodChanges)->Arg(50)->Arg(500)->Unit(benchmark::kMillisecond);

void BM_GroupIntoPods(benchmark::State& state) {
  testing::FakeRuntime rt;
  fill(rt, static_cast<int>(state.range(0)), 2);
  auto sandboxes = rt.list_all_pod_sandboxes().value;
  auto containers = rt.list_all_containers().value;
  PodGrouping grouping;  // as the relist keeps it
  for (auto _ : state) {
    grouping.group(sandboxes, containers);
    benchmark::DoNotOptimize(grouping.size());
  }
}
BENCHMARK(BM_GroupIntoPods)->Arg(5000)->Unit(benchmark::kMillisecond);

void BM_MetricsExposition(benchmark::State& state) {
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  for (auto _ : state)
    benchmark::DoNotOptimize(prometheus::TextSerializer().Serialize(registry.Collect()));
}
BENCHMARK(BM_MetricsExposition);

}  // namespace
}  // namespace plegscope

BENCHMARK_MAIN();
