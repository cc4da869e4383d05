#include "report/runtime_words.h"

#include <utility>
#include <vector>

namespace plegscope {
namespace {

using Rewrites = std::vector<std::pair<std::string, std::string>>;

// Every occurrence but those that are part of an identifier (a cause id such
// as shim_hung, which the report names as it is).
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos;) {
    if (at + from.size() < s.size() && s[at + from.size()] == '_') {
      at = s.find(from, at + from.size());
      continue;
    }
    s.replace(at, from.size(), to);
    at = s.find(from, at + to.size());
  }
}

// The clauses that name both runtimes, each as containerd's reader needs it.
const Rewrites& containerd_rewrites() {
  static const Rewrites r = {
      {"; containerd writes it to its journal, CRI-O to `/tmp/crio-goroutine-stacks-*.log`",
       "; containerd writes it to its journal"},
      {"; on CRI-O the container's `conmon`", ""},
      {"; CRI-O's container locks work the same way", ""},
      {"a pod's runtime helper (shim, conmon, runc)", "a pod's runtime helper (shim, runc)"},
  };
  return r;
}

// CRI-O's: whole clauses first, then the helper's name.
const Rewrites& crio_rewrites() {
  static const Rewrites r = {
      {"; containerd writes it to its journal, CRI-O to `/tmp/crio-goroutine-stacks-*.log`",
       "; CRI-O writes it to `/tmp/crio-goroutine-stacks-*.log`"},
      {"(containerd: `grpc_server_started_total` minus `grpc_server_handled_total` for that `grpc_method`)",
       "(CRI-O records a call only once it returns, so its page shows the method's "
       "`container_runtime_crio_operations_total` no longer growing, never the call in flight)"},
      {"kill its shim (`kill -KILL <shim-pid>`: containerd's shim serves the whole pod and is found by the pod's "
       "sandbox id, as in the runbook's \"On the node\"; on CRI-O the container's `conmon`)",
       "look at its conmon (one per container, found by `-c <container-id>` on its command line, its pod named "
       "by `-n`; `kill -KILL <conmon-pid>` ends what it waits on)"},
      {" (containerd's per-container status lock; CRI-O's container locks work the same way)", ""},
      {"Then restart the runtime once (`systemctl restart {service}`): running containers keep running.",
       "CRI-O's watchdog will restart it (the shipped unit's `WatchdogSec`), or restart it once (`systemctl "
       "restart {service}`): running containers keep running under their conmon."},
      {"A wedged shim: kill that shim, found by its pod's sandbox id (runbook, \"On the node\").",
       "A wedged conmon: look at conmon, the stuck container's own (`-c <container-id>` on its command line), "
       "and kill that one."},
      {"the runtime is hung; capture its goroutine dump, then restart it",
       "CRI-O is hung; capture its goroutine dump and look at conmon: CRI-O's watchdog will restart it"},
      {"capture the runtime's goroutine dump, then restart it",
       "capture CRI-O's goroutine dump and look at conmon: CRI-O's watchdog will restart it"},
      {"a `containerd-shim` parent serves the pod whose pause process it is the parent of (the sandbox's "
       "`init.pid`, runbook \"On the node\"; then `{crictl} inspectp <sandbox-id>`)",
       "a `conmon` parent names its pod in its `-n k8s_<container>_<pod>_<namespace>_<uid>_<attempt>` argument "
       "(then `{crictl} inspect <container-id>` of its `-c` argument)"},
      {"; on containerd, `ctr -a {socket} -n k8s.io --connect-timeout 5s --timeout 60s containers ls -q | wc -l` "
       "counts through containerd's own API, which streams one container per message",
       "; `ls /var/run/crio/exits | wc -l` and the conmon processes count them without CRI"},
      {" On containerd 2.0.1 or 2.0.2 upgrade to 2.0.3 or later (the go-cni deadlock).", ""},
      {" On containerd the runbook's \"On the node\" finds them through `ctr`, without CRI's list.",
       " CRI-O's server allows 80 MiB, so it is the kubelet's client that fails first."},
      // CRI-O's ListContainers takes no container lock: what waits on a
      // stuck call or helper is that container's status calls, not the lists.
      {"`{crictl} ps -a -q` fails after 10 s with `DeadlineExceeded` while `{crictl} pods -q` answers",
       "`{crictl} inspect <container-id>` of that container fails after 10 s with `DeadlineExceeded` while "
       "`{crictl} ps -a -q` answers (CRI-O's lists take no container lock)"},
      {"the lock is released and the lists answer again", "that container's status calls answer again"},
      {", and once a call waits while holding the container's lock, every list waits too",
       ", and so do that container's status calls (CRI-O's lists take no container lock)"},
      {" before a call for its pod hangs the runtime's lists", " before a call for its container hangs"},
      {"a pod's runtime helper (shim, conmon, runc)", "a container's runtime helper (conmon, runc)"},
      {"containerd-shim", "conmon"},
      {"A pod's shim", "A container's conmon"},
      {"that pod's shim", "that container's conmon"},
      {"shims", "conmons"},
      {"shim", "conmon"},
  };
  return r;
}

// A CRI-O before 1.32: its unit has no watchdog, so it is restarted by hand.
const Rewrites& crio_without_watchdog() {
  static const Rewrites r = {
      {"CRI-O's watchdog will restart it (the shipped unit's `WatchdogSec`), or restart it once",
       "restart it once, as no watchdog will (CRI-O's unit ships `WatchdogSec` from 1.32)"},
      {"look at conmon: CRI-O's watchdog will restart it",
       "look at conmon, then restart CRI-O (its unit has no watchdog before 1.32)"},
  };
  return r;
}

// A containerd outside 2.0.1-2.0.2 has no go-cni deadlock to upgrade from.
const Rewrites& containerd_without_go_cni() {
  static const Rewrites r = {
      {" On containerd 2.0.1 or 2.0.2 upgrade to 2.0.3 or later (the go-cni deadlock).", ""},
  };
  return r;
}

void apply(std::string& text, const Rewrites& rewrites) {
  for (const auto& [from, to] : rewrites) replace_all(text, from, to);
}

}  // namespace

std::string in_runtime_words(std::string text, const RuntimeModel& model) {
  if (model.family == RuntimeFamily::kOther) return text;
  if (model.family == RuntimeFamily::kCrio) {
    apply(text, crio_rewrites());
    if (!model.watchdog_restarts) apply(text, crio_without_watchdog());
    return text;
  }
  if (!model.go_cni_deadlock_possible) apply(text, containerd_without_go_cni());
  apply(text, containerd_rewrites());
  return text;
}

std::string in_runtime_words(std::string text, RuntimeFamily family) {
  RuntimeModel newest;
  newest.family = family;
  newest.lists_wait_on_container_locks = family != RuntimeFamily::kCrio;
  newest.watchdog_restarts = newest.goroutines_page = family == RuntimeFamily::kCrio;
  newest.go_cni_deadlock_possible = family == RuntimeFamily::kContainerd;
  return in_runtime_words(std::move(text), newest);
}

const char* const* foreign_runtime_words(RuntimeFamily family) {
  static const char* const kOnCrio[] = {"containerd", "containerd-shim", "/run/containerd", "shim", "ctr ",
                                       "`ctr", "status lock", nullptr};
  static const char* const kOnContainerd[] = {"CRI-O", "crio", "/var/run/crio", "conmon", nullptr};
  static const char* const kNone[] = {nullptr};
  if (family == RuntimeFamily::kCrio) return kOnCrio;
  if (family == RuntimeFamily::kContainerd) return kOnContainerd;
  return kNone;
}

}  // namespace plegscope
