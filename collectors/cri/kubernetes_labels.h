#pragma once
// The labels the kubelet puts on every sandbox and container it creates.
namespace plegscope {

inline constexpr const char* kPodUidLabel = "io.kubernetes.pod.uid";
inline constexpr const char* kPodNameLabel = "io.kubernetes.pod.name";
inline constexpr const char* kPodNamespaceLabel = "io.kubernetes.pod.namespace";
inline constexpr const char* kContainerNameLabel = "io.kubernetes.container.name";

}  // namespace plegscope
