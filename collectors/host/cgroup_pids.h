#pragma once
// PID limits from the pids controller: which cgroup a process is in
// (/proc/<pid>/cgroup, v1 "N:pids:/path" or v2 "0::/path") and that
// cgroup's pids.current / pids.max under <sys>/fs/cgroup, v1 or v2.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plegscope::host {

struct CgroupPaths {
  std::optional<std::string> v1_pids;  // "/system.slice/containerd.service" of the pids hierarchy
  std::optional<std::string> unified;  // the v2 path ("0::" line)
};
// nullopt when a line is malformed or no line names a path.
std::optional<CgroupPaths> parse_proc_cgroup(std::string_view text);

// A process's cgroup path as the host's root sees it. Under a private
// cgroup namespace (the default for pods on cgroup v2) a host process reads
// "/../../system.slice/containerd.service"; the ".." parts are dropped
// (runtime daemons sit at the top of the tree). No leading '/'.
std::string strip_cgroup_namespace_dots(std::string path);

// pids.max: a count, or "max" (no limit: limit is nullopt).
struct PidsMax {
  std::optional<int64_t> limit;
};
std::optional<PidsMax> parse_pids_max(std::string_view text);
// pids.current: one non-negative integer.
std::optional<int64_t> parse_pids_current(std::string_view text);

struct PidsUsage {
  std::string cgroup;            // the directory read, relative to <sys>/fs/cgroup
  int64_t current = 0;
  std::optional<int64_t> max;    // nullopt: "max", no limit anywhere up the tree
  std::string limited_by;        // the ancestor whose pids.max binds ("" when none)
  std::optional<double> ratio() const {
    if (!max || *max <= 0) return std::nullopt;
    return static_cast<double>(current) / static_cast<double>(*max);
  }
};

// Reads pids.current of `cgroup_dir` (relative to <sys>/fs/cgroup, e.g.
// "pids/system.slice/docker.service" on v1) and the tightest pids.max from it
// up to the hierarchy's root (`hierarchy_root`, "pids" on v1, "" on v2): a
// service with "max" under a limited slice is limited by the slice. The
// binding limit is the one with the least headroom (max - its own current).
// On failure, `error` says what could not be read.
std::optional<PidsUsage> read_pids_usage(const std::string& sys_path, const std::string& hierarchy_root,
                                         const std::string& cgroup_dir, std::string& error);

}  // namespace plegscope::host
