// libFuzzer target for collectors/host's parsers: every /proc and /sys file
// the host scanner reads (process stat, uptime, btime, cmdline, cgroup,
// pids.max/current, mountinfo, diskstats) and the rates between two
// diskstats samples. Each input goes to every parser; the checks are the
// invariants the scanner relies on.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "host/cgroup_pids.h"
#include "host/diskstats.h"
#include "host/mountinfo.h"
#include "host/process_stat.h"

using namespace plegscope::host;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto s = parse_process_stat(text)) {
    if (s->pid <= 0 || s->comm.size() >= size) __builtin_trap();
    runtime_role(s->comm);
  }
  parse_uptime(text);
  parse_btime(text);
  parse_helper_owner(text, RuntimeRole::kShim);
  parse_helper_owner(text, RuntimeRole::kConmon);
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
