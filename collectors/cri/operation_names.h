#pragma once

namespace plegscope {

// Operation names, exactly the kubelet's `operation_type` label values.
namespace op {
inline constexpr const char* kVersion = "version";
inline constexpr const char* kStatus = "status";
inline constexpr const char* kListPodSandbox = "list_podsandbox";
inline constexpr const char* kListContainers = "list_containers";
inline constexpr const char* kPodSandboxStatus = "podsandbox_status";
inline constexpr const char* kContainerStatus = "container_status";
inline constexpr const char* kGetContainerEvents = "get_container_events";
// Asked once per runtime identity, as the kubelet asks it once at start.
inline constexpr const char* kRuntimeConfig = "runtime_config";
// CRI list streaming has no kubelet name yet; kept apart from the unary lists
// so a dashboard shows which path a node's runtime takes.
inline constexpr const char* kStreamPodSandboxes = "stream_podsandboxes";
inline constexpr const char* kStreamContainers = "stream_containers";
inline constexpr const char* kAll[] = {
    kVersion,         kStatus,           kListPodSandbox,     kListContainers,     kPodSandboxStatus,
    kContainerStatus, kGetContainerEvents, kStreamPodSandboxes, kStreamContainers, kRuntimeConfig};
}  // namespace op

}  // namespace plegscope
