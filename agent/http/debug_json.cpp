#include "http/debug_json.h"

#include "report/format.h"

namespace plegscope {
namespace {

const char* sandbox_state(cri::PodSandboxState s) {
  return s == cri::SANDBOX_READY ? "SANDBOX_READY" : "SANDBOX_NOTREADY";
}

}  // namespace

nlohmann::json pods_json(const std::vector<PodStatus>& pods) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& pod : pods) {
    nlohmann::json sandboxes = nlohmann::json::array();
    for (const auto& s : pod.sandboxes)
      sandboxes.push_back({{"id", s.id()},
                           {"state", sandbox_state(s.state())},
                           {"created_at", rfc3339_from_nanos(s.created_at())}});
    nlohmann::json containers = nlohmann::json::array();
    for (const auto& c : pod.containers)
      containers.push_back({{"id", c.id()},
                            {"name", c.metadata().name()},
                            {"state", cri::ContainerState_Name(c.state())},
                            {"exit_code", c.exit_code()},
                            {"reason", c.reason()},
                            {"started_at", rfc3339_from_nanos(c.started_at())},
                            {"finished_at", rfc3339_from_nanos(c.finished_at())}});
    list.push_back({{"uid", pod.uid},
                    {"name", pod.name},
                    {"namespace", pod.namespace_},
                    {"observed_at", rfc3339(pod.timestamp)},
                    {"sandboxes", std::move(sandboxes)},
                    {"containers", std::move(containers)}});
  }
  return {{"pods", std::move(list)}};
}

nlohmann::json events_json(const std::vector<PodLifecycleEvent>& events) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : events)
    list.push_back({{"time", rfc3339(e.time)},
                    {"type", event_type_name(e.type)},
                    {"pod_uid", e.pod_uid},
                    {"pod_name", e.pod_name},
                    {"pod_namespace", e.pod_namespace},
                    {"container_id", e.container_id},
                    {"container_name", e.container_name}});
  return {{"events", std::move(list)}};
}

}  // namespace plegscope
