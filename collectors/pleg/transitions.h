#pragma once
// The kubelet's relist state machine as a pure function (generic.go's
// generateEvents): old and new PLEG state of one container or sandbox id in,
// lifecycle events out.
#include <optional>
#include <string>
#include <vector>

#include "pleg/pleg.h"
#include "pleg/runtime_pods.h"

namespace plegscope {

enum class PlegState { Running, Exited, Unknown, NonExistent };
const char* pleg_state_name(PlegState state);

// Created is folded into Unknown, as the kubelet does.
PlegState to_pleg_state(RuntimeState state);

// State of `id` in `pod` (a container or a sandbox); NonExistent if absent.
PlegState state_in(const RuntimePod* pod, const std::string& id);

std::vector<PodLifecycleEvent> generate_events(const std::string& pod_uid,
                                               const std::string& container_id, PlegState old_state,
                                               PlegState new_state);

}  // namespace plegscope
