#pragma once
// The pod lifecycle events as values: their types, each type's spelling, one event.
#include <string>

#include "common/clock.h"

namespace plegscope {

enum class PodLifecycleEventType {
  ContainerStarted,
  ContainerDied,
  ContainerRemoved,
  PodSync,
  ContainerChanged,
};
inline constexpr PodLifecycleEventType kAllEventTypes[] = {
    PodLifecycleEventType::ContainerStarted, PodLifecycleEventType::ContainerDied,
    PodLifecycleEventType::ContainerRemoved, PodLifecycleEventType::PodSync,
    PodLifecycleEventType::ContainerChanged};

constexpr const char* event_type_name(PodLifecycleEventType type) {
  switch (type) {
    case PodLifecycleEventType::ContainerStarted: return "ContainerStarted";
    case PodLifecycleEventType::ContainerDied: return "ContainerDied";
    case PodLifecycleEventType::ContainerRemoved: return "ContainerRemoved";
    case PodLifecycleEventType::PodSync: return "PodSync";
    case PodLifecycleEventType::ContainerChanged: return "ContainerChanged";
  }
  return "Unknown";
}

struct PodLifecycleEvent {
  std::string pod_uid;
  PodLifecycleEventType type = PodLifecycleEventType::PodSync;
  std::string container_id;  // the kubelet's Data field
  // Not in the kubelet's event: context for people reading /debug/events.
  TimePoint time{};
  std::string pod_name;
  std::string pod_namespace;
  std::string container_name;

  // Equality is the kubelet's: pod, type and container.
  bool operator==(const PodLifecycleEvent& o) const {
    return pod_uid == o.pod_uid && type == o.type && container_id == o.container_id;
  }
};

}  // namespace plegscope
