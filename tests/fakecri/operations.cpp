#include "operations.h"

namespace fakecri {

namespace {
constexpr const char* kNames[kOpCount] = {
    "Version",          "Status",           "ListPodSandbox",     "PodSandboxStatus",
    "ListContainers",   "ContainerStatus",  "GetContainerEvents", "StreamPodSandboxes",
    "StreamContainers", "RuntimeConfig",    "RunPodSandbox",      "StopPodSandbox",
    "RemovePodSandbox", "CreateContainer",  "StartContainer",     "StopContainer",
    "RemoveContainer",
};
}  // namespace

const char* op_name(Op op) { return kNames[index(op)]; }

std::optional<Op> parse_op(const std::string& name) {
  for (size_t i = 0; i < kOpCount; ++i) {
    if (name == kNames[i]) return static_cast<Op>(i);
  }
  return std::nullopt;
}

bool is_read_only(Op op) { return index(op) < index(Op::RunPodSandbox); }

bool is_list(Op op) {
  return op == Op::ListPodSandbox || op == Op::ListContainers || op == Op::StreamPodSandboxes ||
         op == Op::StreamContainers;
}

std::optional<std::vector<Op>> op_group(const std::string& name) {
  std::vector<Op> ops;
  for (size_t i = 0; i < kOpCount; ++i) {
    Op op = static_cast<Op>(i);
    if (name == "*" || (name == "lists" && is_list(op)) ||
        (name == "statuses" && (op == Op::PodSandboxStatus || op == Op::ContainerStatus)) ||
        (name == "mutating" && !is_read_only(op))) {
      ops.push_back(op);
    }
  }
  if (ops.empty()) return std::nullopt;
  return ops;
}

}  // namespace fakecri
