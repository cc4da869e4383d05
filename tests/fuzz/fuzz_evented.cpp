// libFuzzer target: the evented PLEG's stream loop against a runtime that
// answers from the input (fuzz_runtime.h): ContainerEventResponse streams
// with missing sandbox status, unknown event types, stale timestamps and
// ids that match nothing, streams that break (each break is followed by a
// catch-up relist, answered from the input too), and the fall-back. The
// events also feed the generic PLEG's pod directory, as on the Node.
#include "fuzz_quiet.h"
#include "fuzz_node.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"

using namespace plegscope;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzNode node(data, size);
  auto& [input, runtime, clock, cache] = node;
  auto& registry = fuzz::FuzzNode::registry();
  auto& metrics = fuzz::FuzzNode::metrics();
  GenericPleg generic(runtime, clock, cache, metrics, GenericPlegOptions{8, kGenericRelistTiming});
  // The first input byte picks `auto` (UNIMPLEMENTED ends evented mode) or `true`.
  EventedPleg evented(runtime, clock, cache, generic, metrics, registry,
                      EventedPlegOptions{3, input.byte() % 2 == 0, kGenericRelistTiming, &generic.directory()});
  generic.relist();
  evented.watch_events();  // returns once it has fallen back
  if (evented.fallback_reason().empty()) __builtin_trap();
  size_t received = 0;
  while (generic.watch().try_receive()) received++;
  if (received > generic.watch().capacity()) __builtin_trap();
  evented.healthy();
  cache.snapshot();
  registry.Collect();
  return 0;
}
