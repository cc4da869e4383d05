#pragma once
// The cgroup v2 witness's reads: which hierarchy the host mounts, one
// cgroup's state files, and the walk of kubepods for both drivers' layouts.
// Keeps the previous PSI totals so each read gives a stall over the interval
// since the last scan. Not thread-safe: HostScanner calls it under its lock.
#include <chrono>
#include <map>
#include <set>
#include <string>

#include "common/clock.h"
#include "host/cgroup_psi.h"
#include "host/cgroup_v2_evidence.h"

namespace plegscope::host {

class CgroupV2Reader {
 public:
  using Time = MonoTime;
  // How much of a cgroup to read: its freeze state only (every pod and
  // container, and helpers), plus its limits and events, plus its pressure.
  enum class Depth { kState, kLimits, kPressure };

  explicit CgroupV2Reader(std::string sys_path) : sys_(std::move(sys_path)) {}

  // Sets out.mode and out.root from what <sys>/fs/cgroup holds; false when
  // there is no v2 hierarchy to read (out.unreadable says why when unsure).
  bool begin(CgroupV2Evidence& out, Time now);
  // One cgroup, `path` relative to the root ("/a/b" and "a/b" alike).
  CgroupV2Unit read_unit(const std::string& role, const std::string& path, Depth depth);
  // Every pod and container under kubepods(.slice): state for all, limits
  // and pressure for the pods in `watched` (uids); stopped and watched pods
  // and stopped containers are added to out.units.
  void walk_kubepods(CgroupV2Evidence& out, const std::set<std::string>& watched);
  // Drops the PSI history of cgroups not read this scan.
  void end();

 private:
  void read_state(int dir, CgroupV2Unit& u);
  void read_limits(int dir, CgroupV2Unit& u);
  // pids.events and memory.events only: the forks a limit refused and the
  // OOM kills, for every pod (two small files), not only the watched ones.
  void read_events(int dir, CgroupV2Unit& u);
  void read_pressure(int dir, CgroupV2Unit& u);
  void walk_pod(int pod_dir, const std::string& path, const std::string& uid, bool watched, CgroupV2Evidence& out);

  const std::string sys_;
  std::string root_;
  Time now_{};
  struct Sample {
    PsiTotals totals;
    Time at;
  };
  std::map<std::string, Sample> psi_previous_, psi_seen_;  // key: path + "/" + file
  // When each stopped cgroup was first seen stopped, by path: kept across
  // scans while it stays stopped, dropped the first scan it is not.
  std::map<std::string, Time> stopped_previous_, stopped_seen_;
};

// Reads `name` under the open directory `dir` into `text` (one bounded
// read). 0 on success, else the errno (ENOENT: the kernel has no such file).
int read_cgroup_file(int dir, const char* name, std::string& text);

}  // namespace plegscope::host
