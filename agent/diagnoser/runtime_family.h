#pragma once
// Which runtime the agent reads, from the name its Version call answers
// ("containerd", "cri-o") or, before the first answer, from its socket's
// path. The runtimes differ where causes live: containerd runs one shim per
// pod and its ListContainers waits on each container's status lock; CRI-O
// runs one conmon per container and its ListContainers takes no lock, so a
// stuck helper slows only that container's status calls, and systemd's
// watchdog restarts a CRI-O that stops answering.
#include <algorithm>
#include <cctype>
#include <string>

namespace plegscope {

enum class RuntimeFamily { kContainerd, kCrio, kOther };

inline RuntimeFamily runtime_family(std::string name, const std::string& endpoint = "") {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (name.find("containerd") != std::string::npos) return RuntimeFamily::kContainerd;
  if (name.find("cri-o") != std::string::npos || name.find("crio") != std::string::npos) return RuntimeFamily::kCrio;
  if (!name.empty()) return RuntimeFamily::kOther;
  if (endpoint.find("crio") != std::string::npos) return RuntimeFamily::kCrio;
  if (endpoint.find("containerd") != std::string::npos) return RuntimeFamily::kContainerd;
  return RuntimeFamily::kOther;
}

}  // namespace plegscope
