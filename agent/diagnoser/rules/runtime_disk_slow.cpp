// runtime_disk_slow: the device under the runtime's root answers slowly
// (ms per IO) or is busy nearly all the time. Like node pressure it is named
// only as what is behind slow or hung runtime calls: a busy disk under fast
// calls is no PLEG cause (interactions.cpp drops it then).
#include "diagnoser/cgroup_stalls.h"
#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Finding> judge_runtime_disk_slow(const Context& c) {
  if (!c.s.host || !c.s.host->runtime_disk.value) return std::nullopt;
  const host::RuntimeDisk& d = *c.s.host->runtime_disk.value;
  if (!d.latency_ms || !d.utilization) return std::nullopt;  // one sample: no rates yet
  const bool slow = *d.latency_ms >= c.t.disk_latency_ms;
  const bool busy = *d.utilization >= c.t.disk_utilization;
  if (!slow && !busy) return std::nullopt;
  Finding f = make_finding(CauseId::kRuntimeDiskSlow, Severity::kWarning, 0.5 + (slow ? 0.1 : 0) + (busy ? 0.05 : 0));
  f.device = d.device;
  f.mount = d.mount;
  f.latency_ms = *d.latency_ms;
  f.utilization = *d.utilization;
  f.strong = slow && *d.latency_ms >= 3 * c.t.disk_latency_ms;
  f.evidence.push_back({"runtime_disk_latency_ms", *d.latency_ms, c.t.disk_latency_ms});
  f.evidence.push_back({"runtime_disk_utilization", *d.utilization, c.t.disk_utilization});
  add_cgroup_stalls(c, f, {"io"});
  return f;
}

}  // namespace plegscope
