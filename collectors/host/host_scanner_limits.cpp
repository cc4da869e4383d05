// HostScanner's PID-limit and runtime-disk parts (host_scanner.cpp holds the
// process scan).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include "host/cgroup_pids.h"
#include "host/host_files.h"
#include "host/host_scanner.h"
#include "host/mountinfo.h"

namespace plegscope::host {
namespace {

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> kubepods_dirs(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name.rfind("kubepods", 0) == 0 && is_dir(dir + "/" + name)) out.push_back(name);
    }
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

PidLimit usage_limit(const std::string& sys, const std::string& scope, const std::string& owner,
                     const std::string& root, const std::string& dir) {
  PidLimit limit;
  limit.scope = scope;
  limit.owner = owner;
  limit.cgroup = dir;
  std::string error;
  if (auto usage = read_pids_usage(sys, root, dir, error)) {
    limit.current = usage->current;
    limit.max = usage->max;
    limit.limited_by = usage->limited_by;
    limit.ratio = usage->ratio();
  } else {
    limit.unreadable = error;
  }
  return limit;
}

PidLimit node_limit(const std::string& file, const std::string& scope, int64_t current) {
  PidLimit limit;
  limit.scope = scope;
  limit.current = current;
  FileText f = read_small_file(file, 64);
  auto max = f.ok ? parse_pids_current(f.text) : std::nullopt;  // one integer, as pids.current
  if (!max) {
    limit.unreadable = f.ok ? file + ": malformed" : f.error;
    return limit;
  }
  limit.max = *max;
  if (*max > 0) limit.ratio = static_cast<double>(current) / static_cast<double>(*max);
  return limit;
}

}  // namespace

// Under a private cgroup namespace (the default for pods on cgroup v2) a host
// process's path reads "/../../system.slice/containerd.service": relative to
// this pod's own cgroup. Runtime daemons sit at the top of the tree
// (system.slice/...), so dropping the ".." parts gives their path from the
// root; a daemon nested deeper would be read at the wrong place and reported
// unreadable (no such file), never mistaken for another.
std::string strip_cgroup_namespace_dots(std::string path) {
  while (path.rfind("/..", 0) == 0 && (path.size() == 3 || path[3] == '/')) path.erase(0, 3);
  while (!path.empty() && path[0] == '/') path.erase(0, 1);
  return path;
}

void HostScanner::scan_pid_limits(HostEvidence& out, const std::vector<std::pair<int64_t, std::string>>& daemons) {
  const std::string& sys = options_.sys_path;
  const std::string cgroup_fs = sys + "/fs/cgroup";
  // One limit per daemon name. Where two daemons share a name (a test
  // runtime beside the node's, a nested one), each is read and the one
  // nearest its limit is kept: the one that can run out first.
  std::map<std::string, size_t> by_comm;
  for (const auto& [pid, comm] : daemons) {
    const std::string file = options_.proc_path + "/" + std::to_string(pid) + "/cgroup";
    FileText f = read_small_file(file);
    auto paths = f.ok ? parse_proc_cgroup(f.text) : std::nullopt;
    PidLimit limit;
    if (!paths) {
      limit.scope = "runtime";
      limit.owner = comm;
      limit.unreadable = f.ok ? file + ": malformed" : f.error;
    } else if (paths->v1_pids && is_dir(cgroup_fs + "/pids")) {
      std::string dir = strip_cgroup_namespace_dots(*paths->v1_pids);
      limit = usage_limit(sys, "runtime", comm, "pids", dir.empty() ? "pids" : "pids/" + dir);
    } else if (paths->unified) {
      std::string dir = strip_cgroup_namespace_dots(*paths->unified);
      if (dir.empty()) {
        limit.scope = "runtime";
        limit.owner = comm;
        limit.unreadable = comm + " is in the root cgroup, which has no pids limit";
      } else {
        limit = usage_limit(sys, "runtime", comm, "", dir);
      }
    } else {
      limit.scope = "runtime";
      limit.owner = comm;
      limit.unreadable = file + ": no pids controller (v1) and no unified (v2) line";
    }
    auto seen = by_comm.find(comm);
    if (seen == by_comm.end()) {
      by_comm[comm] = out.pid_limits.size();
      out.pid_limits.push_back(std::move(limit));
    } else if (limit.unreadable.empty() &&
               (!out.pid_limits[seen->second].unreadable.empty() || limit.ratio > out.pid_limits[seen->second].ratio)) {
      out.pid_limits[seen->second] = std::move(limit);
    }
  }
  if (daemons.empty()) {
    PidLimit limit;
    limit.scope = "runtime";
    limit.unreadable = "no runtime daemon (containerd, crio, dockerd, cri-dockerd) among the processes read";
    out.pid_limits.push_back(std::move(limit));
  }

  // kubepods: v1's pids hierarchy when mounted, else the unified tree.
  const bool v1 = is_dir(cgroup_fs + "/pids");
  const std::string parent = v1 ? cgroup_fs + "/pids" : cgroup_fs;
  auto dirs = kubepods_dirs(parent);
  if (dirs.empty()) {
    PidLimit limit;
    limit.scope = "kubepods";
    limit.unreadable = "no kubepods* cgroup under " + parent;
    out.pid_limits.push_back(std::move(limit));
  }
  for (const auto& name : dirs)
    out.pid_limits.push_back(usage_limit(sys, "kubepods", "", v1 ? "pids" : "", v1 ? "pids/" + name : name));

  const int64_t threads = out.processes.threads;
  out.pid_limits.push_back(node_limit(options_.proc_path + "/sys/kernel/pid_max", "node_pid_max", threads));
  out.pid_limits.push_back(node_limit(options_.proc_path + "/sys/kernel/threads-max", "node_threads_max", threads));
}

void HostScanner::scan_disk(HostEvidence& out, const std::vector<std::string>& daemons) {
  auto& disk = out.runtime_disk;
  const std::string& proc = options_.proc_path;
  std::string root = options_.runtime_root;
  if (root.empty())
    root = resolve_runtime_root(daemons, [&](const std::string& p) { return is_dir(p); });
  if (root.empty()) {
    disk.unreadable = "no runtime root: no runtime daemon seen and none of the usual roots exists";
    return;
  }
  const std::string mountinfo_path = proc + "/1/mountinfo";
  FileText mi = read_small_file(mountinfo_path, 1 << 20);
  auto mounts = mi.ok ? parse_mountinfo(mi.text) : std::nullopt;
  if (!mounts) {
    disk.unreadable = mi.ok ? mountinfo_path + ": malformed" : mi.error;
    return;
  }
  const MountEntry* mount = mount_for_path(*mounts, root);
  if (!mount) {
    disk.unreadable = "no mount in " + mountinfo_path + " holds " + root;
    return;
  }
  RuntimeDisk d;
  d.root = root;
  d.mount = mount->mount_point;
  d.fs_type = mount->fs_type;
  d.major = mount->major;
  d.minor = mount->minor;
  const std::string majmin = std::to_string(d.major) + ":" + std::to_string(d.minor);
  if (d.major == 0) {
    disk.unreadable = root + " is on " + mount->fs_type + " (" + majmin + "), not a block device";
    disk.value = std::move(d);
    return;
  }
  const MonoTime now = clock_.monotonic();
  FileText ds = read_small_file(proc + "/diskstats", 1 << 20);
  auto sample = ds.ok ? parse_diskstats(ds.text) : std::nullopt;
  if (!sample) {
    disk.unreadable = ds.ok ? proc + "/diskstats: malformed" : ds.error;
    disk.value = std::move(d);
    return;
  }
  const DiskCounters* after = find_disk(*sample, d.major, d.minor);
  if (after) {
    d.device = after->name;
  } else {
    // Not in diskstats (or under another name): the sysfs link names it.
    char target[512];
    ssize_t n = ::readlink((options_.sys_path + "/dev/block/" + majmin).c_str(), target, sizeof target - 1);
    if (n > 0) {
      std::string link(target, static_cast<size_t>(n));
      d.device = link.substr(link.rfind('/') + 1);
    }
    disk.unreadable = "device " + majmin + (d.device.empty() ? "" : " (" + d.device + ")") + " not in " + proc + "/diskstats";
  }
  if (after && previous_disk_) {
    if (const DiskCounters* before = find_disk(*previous_disk_, d.major, d.minor)) {
      if (auto rates = disk_rates(*before, *after, now - previous_disk_at_)) {
        d.latency_ms = rates->latency_ms;
        d.utilization = rates->utilization;
        d.completed_ios = rates->completed_ios;
        d.in_flight = rates->in_flight;
        d.interval_seconds = std::chrono::duration<double>(now - previous_disk_at_).count();
      }
    }
  }
  if (after) d.in_flight = after->in_flight;
  previous_disk_ = std::move(sample);
  previous_disk_at_ = now;
  disk.value = std::move(d);
}

}  // namespace plegscope::host
