#pragma once
// The kubelet's PLEG metrics under the pleg_ prefix (docs/metrics.md).
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "common/metric_detail.h"
#include "pleg/pleg.h"

namespace plegscope {

// Thread-safe (prometheus-cpp metrics are; the lazily made series are
// published through atomics).
//
// What a healthy node exports and what only appears when it happens: the
// relist error counters appear with the first error of a code, the event lag
// series with the first event of a type that carries a runtime timestamp,
// and the evented families (delivery lag) with evented mode's first event,
// as the kubelet's own series do. `detail` sets the lag and interval buckets
// (common/metric_detail.h).
class PlegMetrics {
 public:
  explicit PlegMetrics(prometheus::Registry& registry, MetricDetail detail = MetricDetail::kLean);

  prometheus::Histogram& relist_duration;
  prometheus::Histogram& relist_interval;
  prometheus::Gauge& last_seen;
  prometheus::Counter& discard_events;
  prometheus::Gauge& pods_to_reinspect;
  prometheus::Gauge& running_pods;
  // The agent's own relist period: the flag, or longer while do-no-harm stretches it.
  prometheus::Gauge& relist_period;
  prometheus::Gauge& relist_threshold;

  prometheus::Counter& events(PodLifecycleEventType type);
  // The runtime's timestamp of a change to the moment the agent knew it
  // (event_lag.h); the invalid ones (zero, future, before creation) apart.
  prometheus::Histogram& event_lag(PodLifecycleEventType type);
  prometheus::Counter& event_lag_invalid(PodLifecycleEventType type);
  // Evented mode only: the event's created_at to its delivery to the agent
  // (event_lag() holds created_at to the cache update).
  prometheus::Histogram& evented_delivery_lag(PodLifecycleEventType type);
  prometheus::Counter& relist_errors(const std::string& code);
  // The kubelet's kubelet_pleg_pod_relist_duration_seconds (1.36+): one
  // on-demand relist of a single pod. Appears with the first one, so a node
  // copying a kubelet before 1.36 exports none.
  prometheus::Histogram& pod_relist_duration();
  prometheus::Gauge& running_containers(const std::string& state);

 private:
  using Histograms = std::array<std::atomic<prometheus::Histogram*>, std::size(kAllEventTypes)>;
  // The series of `type` in `slots`, made on first use under mu_.
  prometheus::Histogram& lazy_histogram(Histograms& slots, prometheus::Family<prometheus::Histogram>*& family,
                                        const char* name, const char* help, PodLifecycleEventType type);

  prometheus::Registry& registry_;
  const MetricDetail detail_;
  prometheus::Family<prometheus::Counter>& events_family_;
  // Looked up once: events() is called per event, Family::Add hashes labels.
  std::array<prometheus::Counter*, std::size(kAllEventTypes)> events_by_type_{};
  std::mutex mu_;  // guards the lazy creation below
  prometheus::Family<prometheus::Histogram>* event_lag_family_ = nullptr;
  prometheus::Family<prometheus::Counter>* event_lag_invalid_family_ = nullptr;
  prometheus::Family<prometheus::Histogram>* evented_delivery_family_ = nullptr;
  std::atomic<prometheus::Histogram*> pod_relist_duration_{nullptr};
  Histograms event_lag_{};
  std::array<std::atomic<prometheus::Counter*>, std::size(kAllEventTypes)> event_lag_invalid_{};
  Histograms evented_delivery_lag_{};
  prometheus::Family<prometheus::Counter>& relist_errors_family_;
  prometheus::Family<prometheus::Gauge>& running_containers_family_;
};

}  // namespace plegscope
