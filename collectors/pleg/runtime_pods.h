#pragma once
// The runtime's lists grouped into pods, the kubelet's kubecontainer.Pod view
// that the relist compares from one period to the next.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cri/kubernetes_labels.h"
#include "cri/runtime_client.h"

namespace plegscope {

enum class RuntimeState { Created, Running, Exited, Unknown };
const char* runtime_state_name(RuntimeState state);  // "created", "running", ...

struct RuntimeContainer {
  std::string id;
  std::string name;
  RuntimeState state = RuntimeState::Unknown;
};

struct RuntimePod {
  std::string uid;
  std::string name;
  std::string namespace_;
  std::vector<RuntimeContainer> containers;
  std::vector<RuntimeContainer> sandboxes;  // READY -> Running, NOTREADY -> Exited

  const RuntimeContainer* find(const std::string& id) const;
};


RuntimeState from_cri(cri::ContainerState state);
RuntimeState from_cri(cri::PodSandboxState state);

// A pod as the relist's answers hold it: views into them, in answer order.
struct PodView {
  std::string_view uid;
  std::string_view name;
  std::string_view namespace_;
  std::vector<const ContainerEntry*> containers;
  std::vector<const SandboxEntry*> sandboxes;
};

// Groups by pod UID: a sandbox's metadata uid; a container's
// io.kubernetes.pod.uid label, else the uid of its sandbox. Containers with
// neither are dropped (they are not Kubernetes pods'). Order: by first
// appearance. The grouping keeps its pod views and their vectors from one
// relist to the next (only its two maps allocate, a node per pod and per
// sandbox). Views are valid while the lists are.
class PodGrouping {
 public:
  void group(const SandboxList& sandboxes, const ContainerList& containers);
  size_t size() const { return count_; }
  const PodView& operator[](size_t i) const { return pods_[i]; }

 private:
  PodView& pod_for(std::string_view uid);

  std::vector<PodView> pods_;  // the first count_ are this grouping's
  size_t count_ = 0;
  std::unordered_map<std::string_view, size_t> index_;
  std::unordered_map<std::string_view, std::string_view> sandbox_uid_;
};

// The pod with its own copies of ids and names.
RuntimePod to_runtime_pod(const PodView& view);

// The same ids in the same states, in any order (a runtime may list in a
// different order each time): nothing to compare id by id. Pods of more than
// kMaxUnorderedCompare items are compared in order only.
inline constexpr size_t kMaxUnorderedCompare = 64;
bool same_state(const PodView& view, const RuntimePod& pod);

// Grouping and copies in one step, for tests and benchmarks.
std::vector<RuntimePod> group_into_pods(const SandboxList& sandboxes, const ContainerList& containers);

}  // namespace plegscope
