#pragma once
// What the runtime the agent reads is, and so how its evidence reads: its
// name and version as its Version call answers them ("cri-o" "1.34.0",
// "containerd" "v2.0.2"), or before the first answer its socket's path. As
// the kubelet's version selects the PLEG model the agent follows, the
// runtime's selects which chains the rules may draw and which advice the
// words give:
//   * containerd's ListContainers takes each container's status lock, so a
//     call stuck on a pod's shim hangs every list; CRI-O's takes none, so a
//     stuck conmon or `runc update`/`runc state` slows only that container's
//     status calls (its opLock), never the lists;
//   * the helper is the shim (one per pod) on containerd, conmon (one per
//     container) on CRI-O;
//   * CRI-O's shipped unit has WatchdogSec since 1.32: systemd restarts a
//     CRI-O that stops answering its own Status, and it serves its goroutine
//     dump on /debug/goroutines; an older CRI-O is restarted by hand;
//   * containerd 2.0.1 and 2.0.2 deadlock in go-cni (fixed in 2.0.3).
// Plain value, pure functions.
#include <array>
#include <optional>
#include <string>

#include "diagnoser/runtime_family.h"

namespace plegscope {

using RuntimeVersion = std::array<int, 3>;  // major, minor, patch

// "1.34.0", "v2.0.2", "1.7.24~ds1", "2.1.0-rc.1" -> {major, minor, patch};
// nullopt when it does not start with two numbers.
std::optional<RuntimeVersion> parse_runtime_version(const std::string& text);

struct RuntimeModel {
  RuntimeFamily family = RuntimeFamily::kOther;
  std::optional<RuntimeVersion> version;  // nullopt: not read yet, or unparsable
  // A call holding one container's lock stalls every ListContainers.
  bool lists_wait_on_container_locks = true;
  // systemd's watchdog restarts the runtime when its Status stops answering.
  bool watchdog_restarts = false;
  // The runtime serves its goroutine dump on its socket (CRI-O's /debug/goroutines).
  bool goroutines_page = false;
  // A release with containerd's go-cni deadlock, or a containerd of unknown
  // version (the advice is then kept).
  bool go_cni_deadlock_possible = false;
};

// The model for a runtime named `name` at `version` (both as Version
// answers them, empty before), reached at `endpoint`. A version that cannot
// be read takes the newest behaviour of that runtime.
RuntimeModel runtime_model(const std::string& name, const std::string& version, const std::string& endpoint = "");

}  // namespace plegscope
