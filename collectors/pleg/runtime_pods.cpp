#include "pleg/runtime_pods.h"

#include <string_view>
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

bool RuntimePod::same_state_as(const RuntimePod& other) const {
  auto same = [](const std::vector<RuntimeContainer>& a, const std::vector<RuntimeContainer>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].state != b[i].state || a[i].id != b[i].id) return false;
    return true;
  };
  return same(containers, other.containers) && same(sandboxes, other.sandboxes);
}

namespace {

using Labels = google::protobuf::Map<std::string, std::string>;

// Keys as std::string once, so a lookup builds no temporary.
const std::string kUidKey = kPodUidLabel;
const std::string kNameKey = kPodNameLabel;
const std::string kNamespaceKey = kPodNamespaceLabel;
const std::string kContainerNameKey = kContainerNameLabel;

std::string_view label(const Labels& labels, const std::string& key) {
  auto it = labels.find(key);
  return it == labels.end() ? std::string_view() : std::string_view(it->second);
}

}  // namespace

std::vector<RuntimePod> group_into_pods(const ListAnswer<cri::PodSandbox>& sandboxes,
                                        ListAnswer<cri::Container> containers) {
  std::vector<RuntimePod> pods;
  // Views into the answers, which outlive this function's maps.
  std::unordered_map<std::string_view, size_t> index;
  std::unordered_map<std::string_view, std::string_view> sandbox_uid;
  index.reserve(sandboxes.size());
  sandbox_uid.reserve(sandboxes.size());
  auto pod_for = [&](std::string_view uid) -> RuntimePod& {
    auto [it, inserted] = index.emplace(uid, pods.size());
    if (inserted) {
      pods.emplace_back();
      pods.back().uid = std::string(uid);
    }
    return pods[it->second];
  };
  for (const auto& s : sandboxes) {
    const std::string& uid = s.metadata().uid();
    if (uid.empty()) continue;
    RuntimePod& pod = pod_for(uid);
    if (pod.name.empty()) {
      pod.name = s.metadata().name();
      pod.namespace_ = s.metadata().namespace_();
    }
    // Sandbox ids are copied (a tenth of the objects): containers look them up.
    sandbox_uid.emplace(s.id(), uid);
    pod.sandboxes.push_back({s.id(), s.metadata().name(), from_cri(s.state())});
  }
  for (auto& c : containers.mutable_items()) {
    std::string_view uid = label(c.labels(), kUidKey);
    if (uid.empty()) {
      auto it = sandbox_uid.find(c.pod_sandbox_id());
      if (it == sandbox_uid.end()) continue;
      uid = it->second;
    }
    RuntimePod& pod = pod_for(uid);
    if (pod.name.empty()) {
      pod.name = std::string(label(c.labels(), kNameKey));
      pod.namespace_ = std::string(label(c.labels(), kNamespaceKey));
    }
    std::string name = c.metadata().name();
    if (name.empty()) name = std::string(label(c.labels(), kContainerNameKey));
    pod.containers.push_back({std::move(*c.mutable_id()), std::move(name), from_cri(c.state())});
  }
  return pods;
}

}  // namespace plegscope
