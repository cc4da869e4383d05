#pragma once
// /debug/pods and /debug/events bodies (docs/operate.md).
#include <nlohmann/json.hpp>
#include <vector>

#include "pleg/pleg.h"
#include "pleg/pod_status_cache.h"

namespace plegscope {

nlohmann::json pods_json(const std::vector<PodStatus>& pods);
nlohmann::json events_json(const std::vector<PodLifecycleEvent>& events);

}  // namespace plegscope
