// libFuzzer target for runtime answers: arbitrary bytes decoded as CRI list
// answers and container events, then put through two relists and the evented
// PLEG. A hostile or broken runtime must never crash the agent.
#include <prometheus/registry.h>

#include <cstddef>
#include <cstdint>

#include "fuzz_quiet.h"
#include "fake_clock.h"
#include "fake_runtime.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"

namespace {

using namespace plegscope;

// Splits the input into three messages: sandboxes, containers, an event.
void decode(const uint8_t* data, size_t size, cri::ListPodSandboxResponse& sandboxes,
            cri::ListContainersResponse& containers, cri::ContainerEventResponse& event) {
  size_t third = size / 3;
  sandboxes.ParseFromArray(data, static_cast<int>(third));
  containers.ParseFromArray(data + third, static_cast<int>(third));
  event.ParseFromArray(data + 2 * third, static_cast<int>(size - 2 * third));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cri::ListPodSandboxResponse sandboxes;
  cri::ListContainersResponse containers;
  cri::ContainerEventResponse event;
  decode(data, size, sandboxes, containers, event);

  plegscope::testing::FakeRuntime fake;
  plegscope::testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  GenericPleg generic(fake, clock, cache, metrics, GenericPlegOptions{16, kGenericRelistTiming});
  generic.relist();  // empty node
  fake.sandboxes.assign(sandboxes.items().begin(), sandboxes.items().end());
  fake.containers.assign(containers.containers().begin(), containers.containers().end());
  generic.relist();
  fake.containers.clear();
  generic.relist();

  EventedPleg evented(fake, clock, cache, generic, metrics, registry, EventedPlegOptions{});
  evented.process(event);
  return 0;
}
