// libFuzzer target for collectors/host's parsers: every /proc and /sys file
// the host scanner reads (process stat, uptime, btime, cmdline, cgroup,
// pids.max/current, mountinfo, diskstats, the status credentials behind a
// hidden wchan, a pod's cgroup; cgroup v2's cgroup.events, cgroup.freeze,
// cgroup.stat, pids.events, memory.events, the PSI files, and a kubepods
// cgroup's name) and the rates between two diskstats
// samples; and, the input cut into lines, the kernel's hung-task reports (whole, and
// line by line as the journal feeds them). Each input goes to every parser; the checks are the
// invariants the scanner relies on.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "host/cgroup_events.h"
#include "host/cgroup_freeze.h"
#include "host/cgroup_pids.h"
#include "host/cgroup_psi.h"
#include "host/cgroup_stat.h"
#include "host/cgroup_v2_names.h"
#include "host/memory_events.h"
#include "host/pids_events.h"
#include "host/diskstats.h"
#include "host/mountinfo.h"
#include "host/host_files.h"
#include "host/hung_task.h"
#include "host/pod_cgroup.h"
#include "host/process_stat.h"
#include "host/wchan_access.h"

using namespace plegscope::host;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto s = parse_process_stat(text)) {
    if (s->pid <= 0 || s->comm.size() >= size) __builtin_trap();
    runtime_role(s->comm);
  }
  auto creds = parse_status_creds(text);
  wchan_hidden("0", creds, creds);
  if (auto uid = pod_uid_from_cgroup(text))
    if (uid->size() != 36) __builtin_trap();
  std::vector<std::string> lines;
  for (size_t at = 0; at <= text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  for (const auto& r : parse_hung_tasks(lines)) {
    if (r.pid < 0 || r.frames.size() > kMaxHungTaskFrames || r.line >= lines.size()) __builtin_trap();
    if (r.classes.size() > r.frames.size()) __builtin_trap();
  }
  // As the journal feeds them: one line at a time, each with a time (the
  // input's bytes make some pauses long), into a small ring.
  HungTaskAssemblerOptions small;
  small.max_reports = 2;
  small.max_frames = 8;
  small.max_frame_bytes = 64;
  HungTaskAssembler assembler(small);
  int64_t t = 1;
  for (const auto& line : lines) {
    t += line.empty() ? 0 : static_cast<unsigned char>(line[0]) * 100'000;
    assembler.feed(line, t);
    if (assembler.reports().size() > small.max_reports) __builtin_trap();
  }
  for (const auto& r : assembler.reports()) {
    size_t bytes = 0;
    for (const auto& f : r.frames) bytes += f.size();
    if (r.frames.size() > small.max_frames || bytes > small.max_frame_bytes || r.pid < 0 || r.tgid < 0) __builtin_trap();
  }
  if (assembler.reports_total() != assembler.reports().size() + assembler.reports_dropped()) __builtin_trap();
  parse_uptime(text);
  parse_btime(text);
  parse_helper_owner(text, RuntimeRole::kShim);
  parse_helper_owner(text, RuntimeRole::kConmon);
  if (auto address = parse_shim_address(text)) shim_serves_socket(*address, text);
  parse_shim_namespace(text);
  if (auto c = parse_proc_cgroup(text)) {
    if (!c->unified && !c->v1_pids) __builtin_trap();
  }
  if (auto m = parse_pids_max(text)) {
    if (m->limit && *m->limit < 0) __builtin_trap();
  }
  if (auto mounts = parse_mountinfo(text)) {
    for (const auto& m : *mounts)
      if (m.mount_point.empty() || m.mount_point[0] != '/') __builtin_trap();
    // The mount found for a path always covers it.
    for (const char* path : {"/var/lib/containerd", "/", "/var/lib/docker/overlay2"}) {
      if (const MountEntry* m = mount_for_path(*mounts, path)) {
        std::string_view p(path), mp(m->mount_point);
        if (mp != "/" && p.compare(0, mp.size(), mp) != 0) __builtin_trap();
      }
    }
  }
  // cgroup v2: a parsed file never invents a figure the text lacks.
  if (auto e = parse_cgroup_events(text))
    if (text.find("populated") == std::string_view::npos || (e->frozen && text.find("frozen") == std::string_view::npos))
      __builtin_trap();
  if (parse_cgroup_freeze(text) && trim(text).size() != 1) __builtin_trap();
  if (auto s = parse_cgroup_stat(text))
    if (text.find("nr_dying_descendants") == std::string_view::npos) __builtin_trap();
  if (parse_pids_events_max(text) && text.find("max") == std::string_view::npos) __builtin_trap();
  if (auto m = parse_memory_events(text))
    if (m->oom_kill && text.find("oom_kill") == std::string_view::npos) __builtin_trap();
  if (auto p = parse_psi_totals(text))
    if (text.find("some") == std::string_view::npos || (p->full_us && text.find("full") == std::string_view::npos))
      __builtin_trap();
  for (const auto& line : lines) {
    CgroupName n = classify_cgroup_name(line);
    if (n.kind == CgroupName::Kind::kPod && n.pod_uid.size() != 36) __builtin_trap();
    if ((n.kind == CgroupName::Kind::kContainer || n.kind == CgroupName::Kind::kConmon) &&
        (n.container_id.empty() || line.find(n.container_id) == std::string::npos))
      __builtin_trap();
  }
  if (auto disks = parse_diskstats(text)) {
    // Every pair of devices as two samples of one: a wrap, a reset or a rate.
    for (size_t i = 0; i + 1 < disks->size(); ++i) {
      if (auto r = disk_rates((*disks)[i], (*disks)[i + 1], std::chrono::seconds(10))) {
        if (r->utilization < 0 || r->utilization > 1) __builtin_trap();
        if (r->latency_ms && (*r->latency_ms < 0 || r->completed_ios == 0)) __builtin_trap();
      }
    }
  }
  return 0;
}
