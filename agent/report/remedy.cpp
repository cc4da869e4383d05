#include "report/remedy.h"

#include <algorithm>

#include "report/wording.h"

namespace plegscope {
namespace {

// crictl's own per-call deadline. Its default, 2 s, makes a merely slow list
// fail like a hung one; 10 s is the agent's default hang threshold.
constexpr const char* kCrictl = "crictl --timeout 10s";

// The runtime's service name for commands: containerd, crio or cri-docker.
std::string runtime_service(std::string name, const std::string& endpoint) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (name.find("containerd") != std::string::npos) return "containerd";
  if (name.find("cri-o") != std::string::npos || name.find("crio") != std::string::npos) return "crio";
  if (name.find("docker") != std::string::npos) return "cri-docker";
  if (endpoint.find("crio") != std::string::npos) return "crio";
  if (endpoint.find("cri-dockerd") != std::string::npos) return "cri-docker";
  return "containerd";
}


void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

std::string state_dir(const std::string& service) {
  if (service == "crio") return "/var/lib/containers";
  if (service == "cri-docker") return "/var/lib/docker";
  return "/var/lib/" + service;
}

}  // namespace

CommandNames command_names(const Report& r) {
  const std::string& endpoint = r.runtime.endpoint;
  CommandNames names;
  names.crictl =
      std::string(kCrictl) + " --runtime-endpoint " + (endpoint.empty() ? std::string("<endpoint>") : endpoint);
  names.socket = endpoint.rfind("unix://", 0) == 0 ? endpoint.substr(7) : endpoint;
  if (names.socket.empty()) names.socket = "<socket>";
  names.service = runtime_service(r.runtime.name, endpoint);
  names.state_dir = state_dir(names.service);
  names.node = r.node.empty() ? "<node>" : r.node;
  return names;
}

CommandNames runbook_command_names() {
  return {kCrictl, "/run/containerd/containerd.sock", "containerd", "/var/lib/containerd",
          "$NODE"};
}

std::string fill_placeholders(const std::string& text, const CommandNames& names) {
  std::string out = text;
  replace_all(out, "{crictl}", names.crictl);
  replace_all(out, "{socket}", names.socket);
  replace_all(out, "{service}", names.service);
  replace_all(out, "{state_dir}", names.state_dir);
  replace_all(out, "{node}", names.node);
  return out;
}

std::string remedy(CauseId id, const Report& r) {
  // The paragraphs in the node's runtime's terms, then its own names.
  const RuntimeModel model = runtime_model(r.runtime.name, r.runtime.version, r.runtime.endpoint);
  const CauseText t = cause_text(id, model);
  const std::string text = std::string("Confirm: ") + t.confirm + " Fix: " + t.fix + " Do not: " + t.never;
  return fill_placeholders(text, command_names(r));
}

}  // namespace plegscope
