#pragma once
// /proc/<pid>/stat, /proc/<pid>/task/<tid>/stat, /proc/uptime, the btime
// line of /proc/stat and /proc/<pid>/cmdline: pure parsers over bytes (as
// prometheus/procfs's ProcStat), and the names of the container runtime's
// processes. Nothing here touches the filesystem.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plegscope::host {

// The fields of /proc/<pid>/stat the host evidence uses (proc(5) numbering).
struct ProcessStat {
  int64_t pid = 0;           // (1)
  std::string comm;          // (2) without the parentheses; at most 15 bytes
  char state = '?';          // (3) R S D Z T t X I ...
  int64_t ppid = 0;          // (4)
  int64_t num_threads = 0;   // (20)
  uint64_t starttime = 0;    // (22) clock ticks after boot
};

// nullopt when the text is not a whole stat line (truncated, no closing
// parenthesis, a non-numeric field). comm may hold spaces and ')': the
// last ')' ends it, as the kernel writes it.
std::optional<ProcessStat> parse_process_stat(std::string_view text);

// First field of /proc/uptime: seconds since boot (CLOCK_BOOTTIME).
std::optional<double> parse_uptime(std::string_view text);

// "btime <unix seconds>" from /proc/stat.
std::optional<int64_t> parse_btime(std::string_view proc_stat);

// What a process is to the container runtime, from its comm.
enum class RuntimeRole {
  kNone,
  kShim,    // containerd-shim, containerd-shim-runc-v2 (comm is cut to 15 bytes)
  kConmon,  // CRI-O's (and podman's) monitor
  kOci,     // runc, runc:[0:PARENT] ..., crun: short-lived unless stuck
  kDaemon,  // containerd, crio, dockerd, cri-dockerd
};
RuntimeRole runtime_role(std::string_view comm);
inline bool is_helper(RuntimeRole r) {
  return r == RuntimeRole::kShim || r == RuntimeRole::kConmon || r == RuntimeRole::kOci;
}
const char* role_name(RuntimeRole r);

// The sandbox (shim: "-id <id>", or shim v1's "-workdir .../<id>") or the
// container (conmon: "-c <id>" / "--cid <id>") a helper serves, from its
// NUL-separated cmdline. nullopt when the cmdline names none.
std::optional<std::string> parse_helper_owner(std::string_view cmdline, RuntimeRole role);

// The socket of the containerd a shim serves: "-address <grpc socket>" on
// the command line of a runtime v2 shim (containerd-shim-runc-v2 -namespace
// k8s.io -id <sandbox> -address /run/containerd/containerd.sock) and of the
// v1 containerd-shim. nullopt when the cmdline names none.
std::optional<std::string> parse_shim_address(std::string_view cmdline);

// The containerd namespace of a shim's tasks ("-namespace k8s.io": the CRI
// plugin's, which is fixed; "moby": Docker's; "default": ctr's). nullopt
// when the cmdline names none.
std::optional<std::string> parse_shim_namespace(std::string_view cmdline);

// Whether a shim's -address names `runtime_socket` (a unix:// endpoint or a
// path), compared as host paths: the "unix://" scheme dropped, /var/run as
// /run. Exact only where the agent sees the socket at its host path, as the
// DaemonSet mounts it (the host's /run/containerd at /run/containerd).
bool shim_serves_socket(std::string_view shim_address, std::string_view runtime_socket);

}  // namespace plegscope::host
