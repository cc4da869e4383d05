#pragma once
// The RuntimeService methods the fake serves, as an enum so per-operation
// settings are arrays rather than string maps on the hot path.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace fakecri {

enum class Op : size_t {
  Version,
  Status,
  ListPodSandbox,
  PodSandboxStatus,
  ListContainers,
  ContainerStatus,
  GetContainerEvents,
  StreamPodSandboxes,
  StreamContainers,
  RuntimeConfig,
  RunPodSandbox,
  StopPodSandbox,
  RemovePodSandbox,
  CreateContainer,
  StartContainer,
  StopContainer,
  RemoveContainer,
};
constexpr size_t kOpCount = 17;

template <typename T>
using PerOp = std::array<T, kOpCount>;

constexpr size_t index(Op op) { return static_cast<size_t>(op); }
const char* op_name(Op op);  // the gRPC method name, e.g. "ListContainers"
std::optional<Op> parse_op(const std::string& name);
bool is_read_only(Op op);
bool is_list(Op op);  // unary and streaming lists

// Scenario keys naming several operations: "*" (all), "lists", "statuses",
// "mutating". Returns nullopt if `name` is not a group.
std::optional<std::vector<Op>> op_group(const std::string& name);

}  // namespace fakecri
