#pragma once
// The event lag as bounded values: the buckets' bounds, one relist's summary, its worst pods.
// event_lag.h measures it; a diagnosis reads p50/p99 over a window (lag_summary.h) and the
// worst pods. Plain values, no protobuf: the diagnoser reaches it through relist_record.h.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "pleg/pod_lifecycle_event.h"

namespace plegscope {

// The histogram's upper bounds in seconds (pleg_event_lag_seconds), and the
// buckets of LagSummary::buckets: index i counts lags <= kLagBuckets[i] and
// > kLagBuckets[i-1]; the last index counts lags over 600 s.
inline constexpr std::array<double, 15> kLagBuckets = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
                                                       5,    10,    30,   60,  120, 300, 600};

// One event among the worst of a relist.
struct PodLag {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::string container;  // the container's name; the sandbox's id for a sandbox event
  PodLifecycleEventType type = PodLifecycleEventType::ContainerStarted;
  Duration lag{0};
};

// One relist's (or one evented stream's) lag, bounded whatever the storm:
// bucket counts with the histogram's bounds, so quantiles over a window are
// the sum of the relists' buckets, as histogram_quantile does.
struct LagSummary {
  static constexpr size_t kWorstPods = 5;
  std::array<uint32_t, kLagBuckets.size() + 1> buckets{};
  int count = 0;
  int invalid = 0;
  Duration sum{0};
  Duration max{0};
  std::vector<PodLag> worst;  // largest lag first, at most kWorstPods, one entry per pod

  void add(const PodLag& sample);
  void add_invalid() { invalid++; }
  // Adds another summary's counts and worst pods, as if its samples had been
  // added here.
  void merge(const LagSummary& other);

 private:
  void keep_worst(const PodLag& sample);
};

// Evented mode's lag: the event's created_at to its delivery to the agent,
// and to the cache update that made it known.
struct EventedLag {
  LagSummary delivery;
  LagSummary cache_update;
  bool empty() const {
    return delivery.count + delivery.invalid + cache_update.count + cache_update.invalid == 0;
  }
  void merge(const EventedLag& other) {
    delivery.merge(other.delivery);
    cache_update.merge(other.cache_update);
  }
};

}  // namespace plegscope
