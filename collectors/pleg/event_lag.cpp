#include "pleg/event_lag.h"

#include <algorithm>

namespace plegscope {

LagMeasure measure_lag(int64_t change_nanos, int64_t created_nanos, TimePoint seen) {
  if (change_nanos <= 0) return {LagMeasure::Kind::kInvalid, Duration(0)};
  // A change before the container existed: a stepped clock or a runtime bug.
  if (created_nanos > 0 && change_nanos < created_nanos) return {LagMeasure::Kind::kInvalid, Duration(0)};
  const Duration lag = seen - from_unix_nanos(change_nanos);
  if (lag < Duration(0)) return {LagMeasure::Kind::kInvalid, Duration(0)};  // in the future
  return {LagMeasure::Kind::kValid, lag};
}

LagMeasure event_lag(PodLifecycleEventType type, const std::string& container_id,
                     const std::vector<cri::ContainerStatus>& containers,
                     const std::vector<cri::PodSandboxStatus>& sandboxes, TimePoint seen) {
  for (const auto& c : containers) {
    if (c.id() != container_id) continue;
    switch (type) {
      case PodLifecycleEventType::ContainerStarted:
        return measure_lag(c.started_at(), c.created_at(), seen);
      case PodLifecycleEventType::ContainerDied:
        return measure_lag(c.finished_at(), c.created_at(), seen);
      case PodLifecycleEventType::ContainerChanged:
        // Only a creation has a timestamp of its own.
        if (c.state() == cri::CONTAINER_CREATED) return measure_lag(c.created_at(), 0, seen);
        return {};
      default:
        return {};
    }
  }
  for (const auto& s : sandboxes) {
    if (s.id() != container_id) continue;
    // A sandbox carries created_at only: its start, never its death.
    if (type == PodLifecycleEventType::ContainerStarted) return measure_lag(s.created_at(), 0, seen);
    return {};
  }
  return {};
}

}  // namespace plegscope
