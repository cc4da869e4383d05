#pragma once
// Pod Lifecycle Event Generator: the types and the one interface both
// implementations (generic relist, evented) share, as in the kubelet's pleg.go.
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/bounded_channel.h"
#include "common/clock.h"
#include "pleg/pod_lifecycle_event.h"

namespace plegscope {

// Where `type` stands in kAllEventTypes (for arrays indexed like it).
inline size_t event_type_index(PodLifecycleEventType type) {
  for (size_t i = 0; i < std::size(kAllEventTypes); ++i)
    if (kAllEventTypes[i] == type) return i;
  return 0;
}

using EventChannel = BoundedChannel<PodLifecycleEvent>;

struct RelistTiming {
  Duration period;
  Duration threshold;
};

// The kubelet's defaults: generic relist every 1 s, unhealthy after 3 min;
// with evented PLEG the generic relist slows to 300 s / 10 min.
inline constexpr RelistTiming kGenericRelistTiming{std::chrono::seconds(1), std::chrono::minutes(3)};
inline constexpr RelistTiming kEventedRelistTiming{std::chrono::seconds(300),
                                                   std::chrono::minutes(10)};

struct HealthStatus {
  bool healthy = false;
  std::string message;  // empty when healthy; the kubelet's sentence otherwise
};

// Thread-safety is per implementation; both shipped ones are thread-safe.
class PodLifecycleEventGenerator {
 public:
  virtual ~PodLifecycleEventGenerator() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  virtual void update(RelistTiming timing) = 0;
  virtual EventChannel& watch() = 0;
  virtual HealthStatus healthy() const = 0;
  virtual void relist() = 0;
};

}  // namespace plegscope
