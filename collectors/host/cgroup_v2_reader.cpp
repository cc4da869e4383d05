#include "host/cgroup_v2_reader.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "host/cgroup_events.h"
#include "host/cgroup_freeze.h"
#include "host/cgroup_pids.h"
#include "host/cgroup_stat.h"
#include "host/cgroup_v2_names.h"
#include "host/memory_events.h"
#include "host/pids_events.h"

namespace plegscope::host {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string relative(const std::string& path) {
  size_t i = 0;
  while (i < path.size() && path[i] == '/') ++i;
  return path.substr(i);
}

// One file of a unit: the text, or its name in `unavailable` (absent on this
// kernel) or `unreadable` (present but not read).
bool read_part(int dir, const char* name, CgroupV2Unit& u, std::string& text) {
  const int err = read_cgroup_file(dir, name, text);
  if (err == 0) return true;
  if (err == ENOENT) u.unavailable.emplace_back(name);
  else if (u.unreadable.empty()) u.unreadable = std::string(name) + ": " + std::strerror(err);
  return false;
}

void malformed(CgroupV2Unit& u, const char* name) {
  if (u.unreadable.empty()) u.unreadable = std::string(name) + ": malformed";
}

std::vector<std::string> subdirs(int dir) {
  std::vector<std::string> out;
  const int fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return out;
  }
  while (dirent* e = ::readdir(d))
    if (e->d_type == DT_DIR && e->d_name[0] != '.') out.emplace_back(e->d_name);
  ::closedir(d);
  return out;
}

}  // namespace

int read_cgroup_file(int dir, const char* name, std::string& text) {
  const int fd = ::openat(dir, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  char buffer[1024];  // the largest state file read here is ~200 bytes
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  const int err = n < 0 ? errno : 0;
  ::close(fd);
  if (n < 0) return err;
  text.assign(buffer, static_cast<size_t>(n));
  return 0;
}

bool CgroupV2Reader::begin(CgroupV2Evidence& out, Time now) {
  now_ = now;
  const std::string base = sys_ + "/fs/cgroup";
  // cgroup.controllers exists only at a cgroup2 mount (and below it): the
  // root's own says the host mounts v2 there.
  if (exists(base + "/cgroup.controllers")) {
    out.mode = "unified";
    root_ = base;
  } else if (exists(base + "/unified/cgroup.controllers")) {
    out.mode = "hybrid";
    root_ = base + "/unified";
  } else {
    out.mode = "v1";
    root_.clear();
    return false;
  }
  out.root = root_;
  return true;
}

CgroupV2Unit CgroupV2Reader::read_unit(const std::string& role, const std::string& path, Depth depth) {
  CgroupV2Unit u;
  u.role = role;
  u.path = relative(path);
  const std::string full = u.path.empty() ? root_ : root_ + "/" + u.path;
  const int dir = ::open(full.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    u.unreadable = full + ": " + std::strerror(errno);
    return u;
  }
  read_state(dir, u);
  if (depth != Depth::kState) read_limits(dir, u);
  if (depth == Depth::kPressure) read_pressure(dir, u);
  ::close(dir);
  return u;
}

void CgroupV2Reader::read_state(int dir, CgroupV2Unit& u) {
  std::string text;
  if (read_part(dir, "cgroup.events", u, text)) {
    if (auto e = parse_cgroup_events(text)) {
      u.populated = e->populated;
      u.frozen = e->frozen;
      if (!e->frozen) u.unavailable.emplace_back("cgroup.events frozen");
    } else {
      malformed(u, "cgroup.events");
    }
  }
  // The root cgroup cannot be frozen and has no cgroup.freeze.
  if (u.path.empty()) return;
  if (read_part(dir, "cgroup.freeze", u, text)) {
    if (auto f = parse_cgroup_freeze(text)) u.freeze = *f;
    else malformed(u, "cgroup.freeze");
  }
  if (!u.stopped()) return;
  auto it = stopped_previous_.find(u.path);
  const Time since = it == stopped_previous_.end() ? now_ : it->second;
  stopped_seen_.emplace(u.path, since);
  u.seconds_stopped = std::chrono::duration<double>(now_ - since).count();
}

void CgroupV2Reader::read_limits(int dir, CgroupV2Unit& u) {
  std::string text;
  if (read_part(dir, "pids.current", u, text)) {
    if (auto c = parse_pids_current(text)) u.pids_current = *c;
    else malformed(u, "pids.current");
  }
  if (read_part(dir, "pids.max", u, text)) {
    if (auto m = parse_pids_max(text)) {
      u.pids_max = m->limit;
      u.pids_unlimited = !m->limit;
    } else {
      malformed(u, "pids.max");
    }
  }
  if (read_part(dir, "pids.events.local", u, text)) {
    if (auto m = parse_pids_events_max(text)) u.pids_events_local_max = *m;
    else malformed(u, "pids.events.local");
  }
  read_events(dir, u);
}

void CgroupV2Reader::read_events(int dir, CgroupV2Unit& u) {
  std::string text;
  if (read_part(dir, "pids.events", u, text)) {
    if (auto m = parse_pids_events_max(text)) u.pids_events_max = *m;
    else malformed(u, "pids.events");
  }
  if (read_part(dir, "memory.events", u, text)) {
    if (auto m = parse_memory_events(text)) {
      u.memory_high = m->high;
      u.memory_oom_kill = m->oom_kill;
    } else {
      malformed(u, "memory.events");
    }
  }
}

void CgroupV2Reader::read_pressure(int dir, CgroupV2Unit& u) {
  std::string text;
  for (const char* resource : {"cpu", "io", "memory"}) {
    const std::string file = std::string(resource) + ".pressure";
    if (!read_part(dir, file.c_str(), u, text)) continue;
    auto totals = parse_psi_totals(text);
    if (!totals) {
      malformed(u, file.c_str());
      continue;
    }
    PsiStall s;
    s.resource = resource;
    const std::string key = u.path + "/" + file;
    if (auto prev = psi_previous_.find(key); prev != psi_previous_.end() && now_ > prev->second.at) {
      s.interval_seconds = std::chrono::duration<double>(now_ - prev->second.at).count();
      const PsiTotals& before = prev->second.totals;
      // A counter that went back is a new cgroup under the same path.
      if (totals->some_us >= before.some_us) s.some_seconds = (totals->some_us - before.some_us) / 1e6;
      if (totals->full_us && before.full_us && *totals->full_us >= *before.full_us)
        s.full_seconds = (*totals->full_us - *before.full_us) / 1e6;
    }
    psi_seen_[key] = {*totals, now_};
    u.pressure.push_back(std::move(s));
  }
}

void CgroupV2Reader::end() {
  psi_previous_ = std::move(psi_seen_);
  psi_seen_.clear();
  stopped_previous_ = std::move(stopped_seen_);
  stopped_seen_.clear();
}

void CgroupV2Reader::walk_kubepods(CgroupV2Evidence& out, const std::set<std::string>& watched) {
  std::string top;
  if (exists(root_ + "/kubepods.slice")) {
    out.driver = "systemd";
    top = "kubepods.slice";
  } else if (exists(root_ + "/kubepods")) {
    out.driver = "cgroupfs";
    top = "kubepods";
  } else {
    return;
  }
  CgroupV2Unit kubepods = read_unit("kubepods", top, Depth::kLimits);
  const int top_dir = ::open((root_ + "/" + top).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (top_dir >= 0) {
    std::string text;
    if (read_part(top_dir, "cgroup.stat", kubepods, text)) {
      if (auto s = parse_cgroup_stat(text)) kubepods.nr_dying_descendants = s->nr_dying_descendants;
      else malformed(kubepods, "cgroup.stat");
    }
  }
  out.units.push_back(std::move(kubepods));
  if (top_dir < 0) return;
  // Pods directly under kubepods (Guaranteed) and under each QoS class.
  std::vector<std::pair<int, std::string>> parents{{top_dir, top}};
  for (const auto& name : subdirs(top_dir))
    if (classify_cgroup_name(name).kind == CgroupName::Kind::kQos) {
      const int qos = ::openat(top_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (qos >= 0) parents.emplace_back(qos, top + "/" + name);
    }
  for (const auto& [parent, parent_path] : parents) {
    for (const auto& name : subdirs(parent)) {
      CgroupName n = classify_cgroup_name(name);
      if (n.kind != CgroupName::Kind::kPod) continue;
      const int pod = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (pod < 0) continue;  // removed since the listing
      walk_pod(pod, parent_path + "/" + name, n.pod_uid, watched.count(n.pod_uid) > 0, out);
      ::close(pod);
    }
    ::close(parent);
  }
}

void CgroupV2Reader::walk_pod(int pod_dir, const std::string& path, const std::string& uid, bool watched,
                              CgroupV2Evidence& out) {
  ++out.pods_read;
  CgroupV2Unit pod;
  pod.role = "pod";
  pod.path = path;
  pod.pod_uid = uid;
  read_state(pod_dir, pod);
  // Limits and pressure only for the watched pods (a call in flight): every
  // pod's freeze state, refused forks and OOM kills are what the scan cannot
  // do without (without pids.events here, a pod at its pids.max was never
  // listed: seen on a real cgroup v2 node, tests/vm pids_max).
  if (watched) {
    read_limits(pod_dir, pod);
    read_pressure(pod_dir, pod);
  } else {
    read_events(pod_dir, pod);
  }
  uint64_t containers_refused = 0;
  for (const auto& name : subdirs(pod_dir)) {
    CgroupName n = classify_cgroup_name(name);
    if (n.kind != CgroupName::Kind::kContainer && n.kind != CgroupName::Kind::kConmon) continue;
    const int dir = ::openat(pod_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) continue;
    CgroupV2Unit c;
    c.role = n.kind == CgroupName::Kind::kConmon ? "helper" : "container";
    c.owner = n.kind == CgroupName::Kind::kConmon ? "conmon" : "";
    c.path = path + "/" + name;
    c.pod_uid = uid;
    c.container_id = n.container_id;
    read_state(dir, c);
    // Before 6.12 the kernel counts a refused fork in pids.events of the
    // forking task's own cgroup, the container's, not in the pod's whose
    // pids.max refused it (seen on 6.1: tests/vm pids_max); from 6.12 it is
    // the pod's, counted up the tree. The pod's figure is the larger of its
    // own and its containers' sum, so neither kernel counts a fork twice.
    std::string text;
    if (read_part(dir, "pids.events", c, text))
      if (auto m = parse_pids_events_max(text)) containers_refused += *m;
    ::close(dir);
    out.containers.push_back({c.container_id, uid, n.kind == CgroupName::Kind::kConmon ? "conmon" : "container",
                              c.path, c.populated, c.stopped()});
    if (c.stopped()) out.units.push_back(std::move(c));
  }
  if (containers_refused > pod.pids_events_max.value_or(0)) pod.pids_events_max = containers_refused;
  if (watched || pod.stopped() || pod.pids_events_max.value_or(0) > 0 || pod.memory_oom_kill.value_or(0) > 0)
    out.units.push_back(std::move(pod));
}

}  // namespace plegscope::host
