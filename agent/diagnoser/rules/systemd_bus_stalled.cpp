// systemd_bus_stalled: the system bus daemon (dbus-daemon or dbus-broker in
// system.slice) cannot run, stopped (T, t) or in D, while a runtime helper
// (runc or crun, not a container's init) has lived past the hang threshold.
// With the systemd cgroup driver runc's cgroup manager asks systemd for the
// container's scope with StartTransientUnit over the system bus, on a
// context without a deadline (its 30 s timer starts only once the call has
// returned), so `runc create` waits in S for as long as the bus is stalled,
// outside any frozen cgroup, and the pod's RunPodSandbox (the kubelet's
// call, not the agent's) with it. Measured on a real cgroup v2 node (tests/vm
// dbus_stopped): dbus-daemon stopped, runc create in futex_wait, S.
//
// The bus stalled alone past the threshold, with no helper waiting yet, is
// an info: the next container start will wait. Under the cgroupfs driver
// runc writes the cgroups itself and never asks the bus: nothing is named.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/systemd_bus_stalled.h"

namespace plegscope {
namespace {

// The CLI of an OCI runtime: runc's container init ("runc:[2:INIT]") waits
// for its start by design, and a shim or conmon is not a bus client.
bool runtime_cli(const host::HelperProcess& h) {
  return h.role == "oci_runtime" && (h.comm == "runc" || h.comm == "crun") && h.state != 'Z';
}

PodRef pod_of(const Context& c, const std::string& sandbox_id) {
  if (auto it = c.s.pods_by_sandbox.find(sandbox_id); it != c.s.pods_by_sandbox.end()) return it->second;
  PodRef p;
  p.sandbox_id = sandbox_id;
  return p;
}

}  // namespace

std::optional<Finding> judge_systemd_bus_stalled(const Context& c) {
  if (!c.s.host) return std::nullopt;
  const host::HostEvidence& h = *c.s.host;
  if (h.cgroup_v2.driver == "cgroupfs") return std::nullopt;
  const double hang = c.t.hang_seconds;
  // The bus daemon stalled longest: the one every client waits behind.
  const host::BusDaemon* bus = nullptr;
  for (const auto& daemon : h.system_bus.daemons)
    if (daemon.stalled && (!bus || daemon.seconds_stalled > bus->seconds_stalled)) bus = &daemon;
  if (!bus) return std::nullopt;
  Finding f = make_finding(CauseId::kSystemdBusStalled, Severity::kWarning, 0.8);
  SystemdBusStalledDetails& d = f.details<SystemdBusStalledDetails>();
  d.threshold_seconds = hang;
  d.bus = SystemdBusStalledDetails::BusDaemon{bus->pid, bus->comm, bus->state, bus->seconds_stalled};
  for (const auto& p : h.processes.helpers) {
    if (!runtime_cli(p) || !p.age_seconds || *p.age_seconds < hang) continue;
    Finding::HostProcess w;
    w.pid = p.pid;
    w.comm = p.comm;
    w.seconds = *p.age_seconds;
    w.sandbox_id = p.sandbox_id;
    f.processes.push_back(std::move(w));
  }
  // Longest waiting first: the first start that hung.
  std::stable_sort(f.processes.begin(), f.processes.end(),
                   [](const Finding::HostProcess& a, const Finding::HostProcess& b) { return a.seconds > b.seconds; });
  f.evidence.push_back({"bus_stalled_seconds{pid=" + std::to_string(bus->pid) + ",comm=" + bus->comm +
                            ",state=" + std::string(1, bus->state) + "}",
                        bus->seconds_stalled, hang});
  for (const auto& w : f.processes) {
    f.evidence.push_back({"helper_waiting_seconds{pid=" + std::to_string(w.pid) + ",comm=" + w.comm +
                              (w.sandbox_id.empty() ? "" : ",sandbox=" + w.sandbox_id.substr(0, 12)) + "}",
                          w.seconds, hang});
    if (w.sandbox_id.empty()) continue;
    PodRef pod = pod_of(c, w.sandbox_id);
    if (std::none_of(f.pods.begin(), f.pods.end(), [&](const PodRef& p) { return p.sandbox_id == pod.sandbox_id; }))
      f.pods.push_back(std::move(pod));
  }
  if (!f.processes.empty()) {
    f.seconds = f.processes.front().seconds;
    return f;
  }
  // Nothing waits yet: named once the bus has been stalled past the threshold.
  if (bus->seconds_stalled < hang) return std::nullopt;
  f.severity = Severity::kInfo;
  f.form = Form::kNothingHangsYet;
  f.confidence = 0.5;
  f.seconds = bus->seconds_stalled;
  return f;
}

}  // namespace plegscope
