#pragma once
// The kubelet's PLEG metrics under the pleg_ prefix (DESIGN §4).
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <map>
#include <string>

#include "pleg/pleg.h"

namespace plegscope {

// Thread-safe (prometheus-cpp metrics are).
class PlegMetrics {
 public:
  explicit PlegMetrics(prometheus::Registry& registry);

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
  prometheus::Gauge& running_containers(const std::string& state);

 private:
  prometheus::Family<prometheus::Counter>& events_family_;
  // Looked up once: events() is called per event, Family::Add hashes labels.
  std::array<prometheus::Counter*, std::size(kAllEventTypes)> events_by_type_{};
  std::array<prometheus::Histogram*, std::size(kAllEventTypes)> event_lag_{};
  std::array<prometheus::Counter*, std::size(kAllEventTypes)> event_lag_invalid_{};
  std::array<prometheus::Histogram*, std::size(kAllEventTypes)> evented_delivery_lag_{};
  prometheus::Family<prometheus::Counter>& relist_errors_family_;
  prometheus::Family<prometheus::Gauge>& running_containers_family_;
};

}  // namespace plegscope
