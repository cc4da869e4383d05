#pragma once
// What the cgroup v2 witness read: the unified hierarchy's own view of the
// runtime, the kubelet, kubepods, each pod and container, and the runtime's
// helpers. Every counter the kernel may lack is optional: a file absent on
// this kernel is listed in `unavailable` and its value stays nullopt, never 0.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plegscope::host {

// One resource's stall between two scans, from the PSI `total` counters.
struct PsiStall {
  std::string resource;                // "cpu", "io", "memory"
  std::optional<double> some_seconds;  // time some task stalled over the interval
  std::optional<double> full_seconds;  // time every task stalled (nullopt: the kernel has no full line)
  double interval_seconds = 0;         // 0 on the first read: no delta yet
  // Share of the interval with some task stalled, 0..1 (nullopt before a delta).
  std::optional<double> some_share() const {
    if (!some_seconds || interval_seconds <= 0) return std::nullopt;
    return *some_seconds / interval_seconds;
  }
};

struct CgroupV2Unit {
  std::string role;          // "runtime", "kubelet", "kubepods", "pod", "container", "helper"
  std::string path;          // relative to the v2 root ("" = the root)
  std::string owner;         // runtime/helper: the process's comm; else ""
  std::string pod_uid;       // pods, containers, helpers below a pod
  std::string container_id;  // containers (and conmon's scope)
  std::optional<bool> populated;
  std::optional<bool> frozen;  // cgroup.events "frozen": the freeze completed
  std::optional<bool> freeze;  // cgroup.freeze: a freeze was asked here
  // Stopped (frozen or freezing) this long, from the first scan that saw it
  // so (0 on that scan): the kernel keeps no time of a freeze, so this is a
  // lower bound by up to one scan interval. 0 while not stopped.
  double seconds_stopped = 0;
  std::optional<int64_t> pids_current;
  std::optional<int64_t> pids_max;  // nullopt with pids_unlimited: "max"
  bool pids_unlimited = false;
  std::optional<uint64_t> pids_events_max;        // forks refused here or below
  std::optional<uint64_t> pids_events_local_max;  // by this cgroup's own limit (Linux 6.13+)
  std::optional<uint64_t> memory_high;            // memory.events high
  std::optional<uint64_t> memory_oom_kill;        // memory.events oom_kill
  std::optional<uint64_t> nr_dying_descendants;   // kubepods only
  std::vector<PsiStall> pressure;
  std::vector<std::string> unavailable;  // files this kernel (or controller set) lacks
  std::string unreadable;                // a file present but unreadable or malformed
  // Frozen, or asked to freeze and not (yet) frozen: its tasks cannot run.
  bool stopped() const { return frozen.value_or(false) || freeze.value_or(false); }
  bool freeze_incomplete() const { return freeze.value_or(false) && !frozen.value_or(false); }
  std::optional<double> pids_ratio() const {
    if (!pids_current || !pids_max || *pids_max <= 0) return std::nullopt;
    return static_cast<double>(*pids_current) / static_cast<double>(*pids_max);
  }
};

// One container's cgroup as the kernel sees it, for the diagnoser to set
// against what the runtime lists (the scanner does not see the runtime).
struct ContainerCgroup {
  std::string id;       // from the scope or directory name
  std::string pod_uid;
  std::string kind;     // "container", or "conmon" (CRI-O's crio-conmon-<id>.scope)
  std::string path;
  std::optional<bool> populated;  // nullopt: cgroup.events unreadable
  bool stopped = false;           // frozen or freezing
};

struct CgroupV2Evidence {
  // "unified" (<sys>/fs/cgroup is cgroup2), "hybrid" (v1 controllers, v2 at
  // <sys>/fs/cgroup/unified), "v1" (no v2 hierarchy: nothing else is read).
  std::string mode;
  std::string root;    // the v2 hierarchy read
  std::string driver;  // "systemd" (kubepods.slice), "cgroupfs" (kubepods), "" (none seen)
  std::vector<CgroupV2Unit> units;  // runtime, kubelet, kubepods, then stopped or watched pods/containers/helpers
  std::vector<ContainerCgroup> containers;
  int64_t pods_read = 0;
  std::string unreadable;  // why the walk could not run ("" when it did)
};

}  // namespace plegscope::host
