#pragma once
// The pod a process belongs to, from its /proc/<pid>/cgroup: the kubelet
// puts every pod under a cgroup named after its uid, "pod<uid>" with the
// cgroupfs driver (/kubepods/burstable/pod1234-...) and
// "kubepods-<qos>-pod<uid with _>.slice" with the systemd driver. Pure.
#include <optional>
#include <string>
#include <string_view>

namespace plegscope::host {

// The pod uid (with dashes) of the first cgroup line naming one; nullopt
// when none does (a host process, or a runtime not started by a kubelet).
std::optional<std::string> pod_uid_from_cgroup(std::string_view proc_cgroup);

}  // namespace plegscope::host
