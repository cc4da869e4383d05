#include "pleg/runtime_pods.h"


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

RuntimeState container_state(const ContainerEntry& c) {
  return from_cri(static_cast<cri::ContainerState>(c.state));
}
RuntimeState sandbox_state(const SandboxEntry& s) {
  return from_cri(static_cast<cri::PodSandboxState>(s.state));
}
std::string_view container_name(const ContainerEntry& c) {
  return c.name.empty() ? c.container_name_label : c.name;
}

// Every entry matches an item of `items` not matched before, with the same
// id and state; equal sizes make it a one-to-one match.
template <typename Entry, typename StateOf>
bool same_items(const std::vector<const Entry*>& entries, const std::vector<RuntimeContainer>& items,
                StateOf state_of) {
  const size_t n = entries.size();
  if (n != items.size()) return false;
  auto same = [&](const Entry& e, const RuntimeContainer& c) {
    return c.state == state_of(e) && c.id == e.id;
  };
  size_t i = 0;
  while (i < n && same(*entries[i], items[i])) ++i;  // most often all, in order
  if (i == n) return true;
  if (n > kMaxUnorderedCompare) return false;
  bool matched[kMaxUnorderedCompare] = {};
  for (size_t k = 0; k < i; ++k) matched[k] = true;
  for (; i < n; ++i) {
    size_t k = 0;
    while (k < n && (matched[k] || !same(*entries[i], items[k]))) ++k;
    if (k == n) return false;
    matched[k] = true;
  }
  return true;
}

}  // namespace

PodView& PodGrouping::pod_for(std::string_view uid) {
  auto [it, inserted] = index_.emplace(uid, count_);
  if (inserted) {
    if (count_ == pods_.size()) pods_.emplace_back();
    PodView& pod = pods_[count_++];
    pod.uid = uid;
    pod.name = pod.namespace_ = std::string_view();
    pod.containers.clear();
    pod.sandboxes.clear();
  }
  return pods_[it->second];
}

void PodGrouping::group(const SandboxList& sandboxes, const ContainerList& containers) {
  count_ = 0;
  index_.clear();
  sandbox_uid_.clear();
  for (const auto& s : sandboxes) {
    if (s.uid.empty()) continue;
    PodView& pod = pod_for(s.uid);
    if (pod.name.empty()) {
      pod.name = s.name;
      pod.namespace_ = s.namespace_;
    }
    sandbox_uid_.emplace(s.id, s.uid);
    pod.sandboxes.push_back(&s);
  }
  for (const auto& c : containers) {
    std::string_view uid = c.pod_uid_label;
    if (uid.empty()) {
      auto it = sandbox_uid_.find(c.pod_sandbox_id);
      if (it == sandbox_uid_.end()) continue;
      uid = it->second;
    }
    PodView& pod = pod_for(uid);
    if (pod.name.empty()) {
      pod.name = c.pod_name_label;
      pod.namespace_ = c.pod_namespace_label;
    }
    pod.containers.push_back(&c);
  }
}

RuntimePod to_runtime_pod(const PodView& view) {
  RuntimePod pod;
  pod.uid = std::string(view.uid);
  pod.name = std::string(view.name);
  pod.namespace_ = std::string(view.namespace_);
  pod.containers.reserve(view.containers.size());
  for (const auto* c : view.containers)
    pod.containers.push_back({std::string(c->id), std::string(container_name(*c)), container_state(*c)});
  pod.sandboxes.reserve(view.sandboxes.size());
  for (const auto* s : view.sandboxes)
    pod.sandboxes.push_back({std::string(s->id), std::string(s->name), sandbox_state(*s)});
  return pod;
}

bool same_state(const PodView& view, const RuntimePod& pod) {
  return same_items(view.containers, pod.containers, container_state) &&
         same_items(view.sandboxes, pod.sandboxes, sandbox_state);
}

std::vector<RuntimePod> group_into_pods(const SandboxList& sandboxes, const ContainerList& containers) {
  PodGrouping grouping;
  grouping.group(sandboxes, containers);
  std::vector<RuntimePod> pods;
  for (size_t i = 0; i < grouping.size(); ++i) pods.push_back(to_runtime_pod(grouping[i]));
  return pods;
}

}  // namespace plegscope
