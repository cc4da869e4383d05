#pragma once
// Small pieces of the diagnoser's sentences.
#include <string>

#include "diagnoser/snapshot.h"
#include "report/format.h"

namespace plegscope {

// The CRI method behind an operation label, as operators know it from crictl
// and runtime logs: "list_containers" -> "ListContainers".
std::string cri_method(const std::string& op);
// The runtime's service name for commands: containerd, crio or cri-docker.
std::string runtime_service(const Snapshot& s);
// "crictl --runtime-endpoint unix:///run/containerd/containerd.sock"
std::string crictl(const Snapshot& s);

}  // namespace plegscope
