#include "diagnoser/prose.h"

#include <algorithm>
#include <map>

#include "cri/operation_names.h"

namespace plegscope {

std::string cri_method(const std::string& op) {
  static const std::map<std::string, std::string> names = {
      {op::kVersion, "Version"},
      {op::kStatus, "Status"},
      {op::kListPodSandbox, "ListPodSandbox"},
      {op::kListContainers, "ListContainers"},
      {op::kPodSandboxStatus, "PodSandboxStatus"},
      {op::kContainerStatus, "ContainerStatus"},
      {op::kGetContainerEvents, "GetContainerEvents"},
      {op::kStreamPodSandboxes, "StreamPodSandboxes"},
      {op::kStreamContainers, "StreamContainers"}};
  auto it = names.find(op);
  return it == names.end() ? op : it->second;
}

std::string runtime_service(const Snapshot& s) {
  std::string n = s.runtime_name;
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (n.find("containerd") != std::string::npos) return "containerd";
  if (n.find("cri-o") != std::string::npos || n.find("crio") != std::string::npos) return "crio";
  if (n.find("docker") != std::string::npos) return "cri-docker";
  if (s.endpoint.find("crio") != std::string::npos) return "crio";
  if (s.endpoint.find("cri-dockerd") != std::string::npos) return "cri-docker";
  return "containerd";
}

std::string crictl(const Snapshot& s) {
  return "crictl --runtime-endpoint " + (s.endpoint.empty() ? std::string("<endpoint>") : s.endpoint);
}

}  // namespace plegscope
