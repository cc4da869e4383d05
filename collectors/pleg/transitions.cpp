#include "pleg/transitions.h"

namespace plegscope {

const char* pleg_state_name(PlegState state) {
  switch (state) {
    case PlegState::Running: return "running";
    case PlegState::Exited: return "exited";
    case PlegState::Unknown: return "unknown";
    case PlegState::NonExistent: return "non-existent";
  }
  return "unknown";
}

PlegState to_pleg_state(RuntimeState state) {
  switch (state) {
    case RuntimeState::Running: return PlegState::Running;
    case RuntimeState::Exited: return PlegState::Exited;
    case RuntimeState::Created:  // the kubelet does not use "created" yet
    case RuntimeState::Unknown: return PlegState::Unknown;
  }
  return PlegState::Unknown;
}

PlegState state_in(const RuntimePod* pod, const std::string& id) {
  if (pod == nullptr) return PlegState::NonExistent;
  const RuntimeContainer* c = pod->find(id);
  return c ? to_pleg_state(c->state) : PlegState::NonExistent;
}

std::vector<PodLifecycleEvent> generate_events(const std::string& pod_uid,
                                               const std::string& container_id, PlegState old_state,
                                               PlegState new_state) {
  if (old_state == new_state) return {};
  auto event = [&](PodLifecycleEventType type) {
    PodLifecycleEvent e;
    e.pod_uid = pod_uid;
    e.type = type;
    e.container_id = container_id;
    return e;
  };
  switch (new_state) {
    case PlegState::Running: return {event(PodLifecycleEventType::ContainerStarted)};
    case PlegState::Exited: return {event(PodLifecycleEventType::ContainerDied)};
    case PlegState::Unknown: return {event(PodLifecycleEventType::ContainerChanged)};
    case PlegState::NonExistent:
      // A container already reported dead is only removed; one that vanished
      // while running (or unknown) died first.
      if (old_state == PlegState::Exited) return {event(PodLifecycleEventType::ContainerRemoved)};
      return {event(PodLifecycleEventType::ContainerDied),
              event(PodLifecycleEventType::ContainerRemoved)};
  }
  return {};
}

}  // namespace plegscope
