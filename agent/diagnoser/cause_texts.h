#pragma once
// The words of each cause, in one table keyed by cause id: how to confirm
// it, what usually fixes it, and what not to do. docs/runbook.md (# Causes)
// says exactly the same, written for containerd with plain `crictl`; the
// unit test cause_texts_test holds the two together.
#include <string>

#include "diagnoser/causes.h"
#include "diagnoser/snapshot.h"

namespace plegscope {

struct CauseText {
  CauseId id;
  const char* confirm;  // the runbook's **Confirm.** paragraph
  const char* fix;      // its **Fix.** paragraph
  const char* never;    // its **Do not.** paragraph
};

const CauseText& cause_text(CauseId id);

// What the table's placeholders {crictl}, {socket}, {service}, {state_dir}
// and {node} stand for.
struct CommandNames {
  std::string crictl;     // "crictl --runtime-endpoint unix:///run/containerd/containerd.sock"
  std::string socket;     // "/run/containerd/containerd.sock"
  std::string service;    // "containerd", "crio", "cri-docker"
  std::string state_dir;  // "/var/lib/containerd", "/var/lib/containers", "/var/lib/docker"
  std::string node;       // the node's name
};

// The node's own: its endpoint, runtime and name.
CommandNames command_names(const Snapshot& s);
// docs/runbook.md's: containerd at its default socket, plain crictl, $NODE.
CommandNames runbook_command_names();
// `text` with every placeholder replaced.
std::string fill_placeholders(const std::string& text, const CommandNames& names);

// The remedy of a report: "Confirm: … Fix: … Do not: …" from the table, in
// the node's own names.
std::string remedy(CauseId id, const Snapshot& s);

}  // namespace plegscope
