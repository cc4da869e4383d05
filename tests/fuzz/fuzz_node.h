#pragma once
// What the PLEG targets share: a runtime answering from the input, a fake
// clock, a status cache, and metrics built once per process (they only
// count, and building them would dominate a run).
#include <prometheus/registry.h>

#include "fake_clock.h"
#include "fuzz_runtime.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_status_cache.h"

namespace plegscope::fuzz {

struct FuzzNode {
  FuzzNode(const uint8_t* data, size_t size) : input(data, size), runtime(input) {}
  InputReader input;
  FuzzRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;

  static prometheus::Registry& registry() {
    static auto* r = new prometheus::Registry();
    return *r;
  }
  static PlegMetrics& metrics() {
    static auto* m = new PlegMetrics(registry());
    return *m;
  }
};

}  // namespace plegscope::fuzz
