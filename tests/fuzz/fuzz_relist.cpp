// libFuzzer target: whole relists against a runtime that answers from the
// input (fuzz_runtime.h): arbitrary sandbox and container lists, duplicate
// ids, missing metadata, unknown enum values, orphan containers, failing and
// undecodable calls, status answers that disagree with the lists.
#include "fuzz_quiet.h"
#include "fuzz_node.h"
#include "pleg/generic_pleg.h"
#include "pleg/relist_recorder.h"

using namespace plegscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzNode node(data, size);
  auto& [input, runtime, clock, cache] = node;
  auto& registry = fuzz::FuzzNode::registry();
  auto& metrics = fuzz::FuzzNode::metrics();
  RelistRecorder recorder(16);
  GenericPleg pleg(runtime, clock, cache, metrics, GenericPlegOptions{8, kGenericRelistTiming},
                   [&](const RelistRecord& r) { recorder.add(r); });
  // A small channel, so a relist that emits many events also discards some.
  for (size_t relist = 1; relist <= 8 && !input.empty(); ++relist) {
    pleg.relist();
    clock.step(std::chrono::seconds(1));
    int received = 0;
    while (pleg.watch().try_receive()) received++;
    // Every relist is recorded, and every event it counted was either
    // delivered or counted as discarded (ContainerChanged is never sent).
    auto records = recorder.snapshot();
    if (records.size() != relist) __builtin_trap();
    const RelistRecord& r = records.back();
    int counted = 0;
    for (size_t i = 0; i < std::size(kAllEventTypes); ++i)
      if (kAllEventTypes[i] != PodLifecycleEventType::ContainerChanged) counted += r.events_by_type[i];
    if (counted != received + r.events_discarded) __builtin_trap();
  }
  pleg.healthy();
  cache.snapshot();
  registry.Collect();
  return 0;
}
