#pragma once
// The runtime's lists grouped into pods, the kubelet's kubecontainer.Pod view
// that the relist compares from one period to the next.
#include <string>
#include <vector>

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
  // Same ids in the same states, in the same order: nothing to compare
  // id by id (a steady node's pods, every relist).
  bool same_state_as(const RuntimePod& other) const;
};

inline constexpr const char* kPodUidLabel = "io.kubernetes.pod.uid";
inline constexpr const char* kPodNameLabel = "io.kubernetes.pod.name";
inline constexpr const char* kPodNamespaceLabel = "io.kubernetes.pod.namespace";
inline constexpr const char* kContainerNameLabel = "io.kubernetes.container.name";

RuntimeState from_cri(cri::ContainerState state);
RuntimeState from_cri(cri::PodSandboxState state);

// Groups by pod UID: a sandbox's metadata uid; a container's
// io.kubernetes.pod.uid label, else the uid of its sandbox. Containers with
// neither are dropped (they are not Kubernetes pods'). Order: by first appearance.
// Container ids are moved out of the answer, not copied: its items are left
// without them (the answer is shared by its copies).
std::vector<RuntimePod> group_into_pods(const ListAnswer<cri::PodSandbox>& sandboxes,
                                        ListAnswer<cri::Container> containers);

}  // namespace plegscope
