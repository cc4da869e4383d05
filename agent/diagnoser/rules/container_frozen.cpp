// container_frozen: a container's (or a pod's) cgroup v2 cgroup frozen, or
// asked to freeze, for at least the hang threshold. Its processes cannot
// run: they take no signal (a StopContainer waits its whole grace period
// and more), answer no probe and serve nothing, and no runtime restart
// thaws them. Measured on a real cgroup v2 node (tests/vm frozen_systemd,
// frozen_runc): both `systemctl freeze` and a cgroup.freeze write left
// behind by a timed-out runc show only in the host scan's units.
//
// Any container cgroup frozen past the threshold is named, a deliberately
// paused one too: the kubelet does not pause containers, so a freeze on a
// kubelet's node is either an operator's, which they can dismiss, or a
// leftover nobody knows about. A warning; critical when a call of the PLEG
// for that pod waits past the threshold (the relist waits on it).
// Runtime helpers in a frozen cgroup are shim_hung's, not this rule's.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/container_frozen.h"

namespace plegscope {
namespace {

using FrozenCgroup = ContainerFrozenDetails::FrozenCgroup;

bool workload(const host::CgroupV2Unit& u) {
  return u.role == "container" || u.role == "pod" || u.role == "kubepods";
}

// Frozen only because a listed parent is (its own cgroup.freeze is 0): the
// parent is named instead, since thawing this one would change nothing.
bool held_by_listed_parent(const std::vector<host::CgroupV2Unit>& units, const host::CgroupV2Unit& u) {
  if (u.freeze.value_or(false)) return false;
  return std::any_of(units.begin(), units.end(), [&](const host::CgroupV2Unit& p) {
    return &p != &u && workload(p) && p.stopped() && u.path.size() > p.path.size() &&
           u.path.compare(0, p.path.size() + 1, p.path + "/") == 0;
  });
}

// A frozen cgroup that holds a runtime helper is shim_hung's, which names
// it and its thaw already.
bool holds_a_helper(const Context& c, const host::CgroupV2Unit& u) {
  const auto& blocked = c.s.host->processes.blocked;
  return std::any_of(blocked.begin(), blocked.end(),
                     [&](const host::BlockedTask& b) { return !b.frozen_cgroup.empty() && b.frozen_cgroup == u.path; });
}

PodRef pod_of(const Context& c, const host::CgroupV2Unit& u) {
  PodRef pod;
  if (u.pod_uid.empty()) return pod;
  if (auto it = c.s.cgroup_pods.find(u.pod_uid); it != c.s.cgroup_pods.end()) pod = it->second;
  if (pod.uid.empty()) pod.uid = u.pod_uid;
  return pod;
}

bool same_pod(const PodRef& a, const PodRef& b) {
  return (!a.uid.empty() && a.uid == b.uid) || (!a.sandbox_id.empty() && a.sandbox_id == b.sandbox_id);
}

std::string cgroup_labels(const FrozenCgroup& g) {
  return "cgroup=" + g.path + (g.incomplete ? ",complete=false" : "") + (g.inherited ? ",inherited=true" : "");
}

}  // namespace

std::optional<Finding> judge_container_frozen(const Context& c) {
  if (!c.s.host) return std::nullopt;
  const auto& units = c.s.host->cgroup_v2.units;
  const double hang = c.t.hang_seconds;
  Finding f = make_finding(CauseId::kContainerFrozen, Severity::kWarning, 0.7);
  ContainerFrozenDetails& d = f.details<ContainerFrozenDetails>();
  d.threshold_seconds = hang;
  for (const auto& u : units) {
    if (!workload(u) || !u.stopped() || u.seconds_stopped < hang || held_by_listed_parent(units, u) ||
        holds_a_helper(c, u))
      continue;
    FrozenCgroup g;
    g.path = u.path;
    g.role = u.role;
    g.seconds = u.seconds_stopped;
    g.incomplete = u.freeze_incomplete();
    g.inherited = !u.freeze.value_or(false);
    g.pod = pod_of(c, u);
    g.pod.container_name.clear();
    d.frozen.push_back(std::move(g));
  }
  if (d.frozen.empty()) return std::nullopt;
  // Longest frozen first: the culprit is the first cgroup and its pod.
  std::stable_sort(d.frozen.begin(), d.frozen.end(),
                   [](const FrozenCgroup& a, const FrozenCgroup& b) { return a.seconds > b.seconds; });
  for (const auto& g : d.frozen) {
    f.evidence.push_back({"seconds_frozen{" + cgroup_labels(g) + "}", g.seconds, hang});
    if (!g.pod.uid.empty() &&
        std::none_of(f.pods.begin(), f.pods.end(), [&](const PodRef& p) { return same_pod(p, g.pod); }))
      f.pods.push_back(g.pod);
  }
  f.seconds = d.frozen.front().seconds;
  // The PLEG's own calls for those pods still in flight: past the threshold,
  // the relist that made them waits on the freeze.
  const bool kubepods = std::any_of(d.frozen.begin(), d.frozen.end(),
                                    [](const FrozenCgroup& g) { return g.role == "kubepods"; });
  for (const auto& pc : c.s.pod_calls) {
    if (!pc.in_flight) continue;
    if (!kubepods && std::none_of(f.pods.begin(), f.pods.end(), [&](const PodRef& p) { return same_pod(p, pc.pod); }))
      continue;
    const std::string pod = pc.pod.name.empty() ? pc.pod.uid : pc.pod.namespace_ + "/" + pc.pod.name;
    f.evidence.push_back({"in_flight_seconds{" + pc.op + ",pod=" + pod + "}", pc.seconds, hang});
    if (pc.seconds <= hang || (d.call_in_flight && pc.seconds <= d.status_call_seconds)) continue;
    d.call_in_flight = true;
    f.op = pc.op;
    d.status_call_seconds = pc.seconds;
  }
  if (d.call_in_flight) {
    f.severity = Severity::kCritical;
    f.form = Form::kBehindHungCall;
    f.confidence = 0.9;
  }
  return f;
}

}  // namespace plegscope
