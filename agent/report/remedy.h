#pragma once
// A cause's remedy: its runbook paragraphs (wording.h) in the node's own
// command names. Stateless.
#include <string>

#include "diagnoser/report.h"

namespace plegscope {

// What the table's placeholders {crictl}, {socket}, {service}, {state_dir}
// and {node} stand for.
struct CommandNames {
  std::string crictl;     // "crictl --timeout 10s --runtime-endpoint unix:///run/containerd/containerd.sock"
  std::string socket;     // "/run/containerd/containerd.sock"
  std::string service;    // "containerd", "crio", "cri-docker"
  std::string state_dir;  // "/var/lib/containerd", "/var/lib/containers", "/var/lib/docker"
  std::string node;       // the node's name
};

// The node's own: its endpoint, runtime and name, as the report has them.
CommandNames command_names(const Report& report);
// docs/runbook.md's: containerd at its default socket, crictl with its timeout, $NODE.
CommandNames runbook_command_names();
// `text` with every placeholder replaced.
std::string fill_placeholders(const std::string& text, const CommandNames& names);

// "Confirm: … Fix: … Do not: …" from the cause's runbook paragraphs, in the
// node's own names.
std::string remedy(CauseId id, const Report& report);

}  // namespace plegscope
