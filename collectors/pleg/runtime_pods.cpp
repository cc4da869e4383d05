#include "pleg/runtime_pods.h"

#include <unordered_map>

namespace plegscope {

const char* runtime_state_name(RuntimeState state) {
  switch (state) {
    case RuntimeState::Created: return "created";
    case RuntimeState::Running: return "running";
    case RuntimeState::Exited: return "exited";
    case RuntimeState::Unknown: return "unknown";
  }
  return "unknown";
}

const RuntimeContainer* RuntimePod::find(const std::string& id) const {
  for (const auto& c : containers)
    if (c.id == id) return &c;
  for (const auto& s : sandboxes)
    if (s.id == id) return &s;
  return nullptr;
}

RuntimeState from_cri(cri::ContainerState state) {
  switch (state) {
    case cri::CONTAINER_CREATED: return RuntimeState::Created;
    case cri::CONTAINER_RUNNING: return RuntimeState::Running;
    case cri::CONTAINER_EXITED: return RuntimeState::Exited;
    default: return RuntimeState::Unknown;
  }
}

RuntimeState from_cri(cri::PodSandboxState state) {
  return state == cri::SANDBOX_READY ? RuntimeState::Running : RuntimeState::Exited;
}

namespace {
std::string label(const google::protobuf::Map<std::string, std::string>& labels, const char* key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}
}  // namespace

std::vector<RuntimePod> group_into_pods(const std::vector<cri::PodSandbox>& sandboxes,
                                        const std::vector<cri::Container>& containers) {
  std::vector<RuntimePod> pods;
  std::unordered_map<std::string, size_t> index;
  std::unordered_map<std::string, std::string> sandbox_uid;
  auto pod_for = [&](const std::string& uid) -> RuntimePod& {
    auto [it, inserted] = index.emplace(uid, pods.size());
    if (inserted) {
      pods.emplace_back();
      pods.back().uid = uid;
    }
    return pods[it->second];
  };
  for (const auto& s : sandboxes) {
    const std::string& uid = s.metadata().uid();
    if (uid.empty()) continue;
    sandbox_uid[s.id()] = uid;
    RuntimePod& pod = pod_for(uid);
    if (pod.name.empty()) {
      pod.name = s.metadata().name();
      pod.namespace_ = s.metadata().namespace_();
    }
    pod.sandboxes.push_back({s.id(), s.metadata().name(), from_cri(s.state())});
  }
  for (const auto& c : containers) {
    std::string uid = label(c.labels(), kPodUidLabel);
    if (uid.empty()) {
      auto it = sandbox_uid.find(c.pod_sandbox_id());
      if (it == sandbox_uid.end()) continue;
      uid = it->second;
    }
    RuntimePod& pod = pod_for(uid);
    if (pod.name.empty()) {
      pod.name = label(c.labels(), kPodNameLabel);
      pod.namespace_ = label(c.labels(), kPodNamespaceLabel);
    }
    std::string name = c.metadata().name();
    if (name.empty()) name = label(c.labels(), kContainerNameLabel);
    pod.containers.push_back({c.id(), name, from_cri(c.state())});
  }
  return pods;
}

}  // namespace plegscope
