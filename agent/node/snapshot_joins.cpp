// The snapshot's joins across the PLEG and the sources.
#include "node/snapshot_joins.h"

#include <algorithm>
#include <set>

#include "cri/kubelet_runtime_errors.h"

namespace plegscope {
namespace {

constexpr size_t kMaxInFlightPodCalls = 20;
constexpr size_t kMaxSlowPodCalls = 10;

PodRef pod_ref(const CallTarget& target, const std::optional<PodIdentity>& found) {
  PodRef p;
  if (found) {
    p = {found->namespace_, found->name, found->uid, found->sandbox_id, found->container_name};
  } else if (target.kind == CallTarget::Kind::kSandbox) {
    p.sandbox_id = target.id;  // a pod not inspected yet: its id is all there is
  } else if (target.kind == CallTarget::Kind::kPodUid) {
    p.uid = target.id;
  }
  return p;
}

}  // namespace

void fill_conmon_sandboxes(host::HostEvidence& evidence, const PodLookup& find_pod) {
  auto fill = [&find_pod](std::string& sandbox_id, const std::string& container_id) {
    if (!sandbox_id.empty() || container_id.empty()) return;
    if (auto found = find_pod({CallTarget::Kind::kContainer, container_id})) sandbox_id = found->sandbox_id;
  };
  for (auto& b : evidence.processes.blocked) fill(b.sandbox_id, b.container_id);
  for (auto& z : evidence.processes.zombie_parents) fill(z.sandbox_id, z.container_id);
}

std::vector<Snapshot::PodCall> pod_calls(const std::map<std::string, OperationStats>& operations,
                                         const PodLookup& find_pod) {
  using Call = std::pair<Snapshot::PodCall, CallTarget>;
  std::vector<Call> in_flight, done;
  for (const auto& [op, st] : operations) {
    for (const auto& call : st.in_flight_calls)
      if (!call.target.empty()) in_flight.push_back({{op, call.seconds, true, {}, {}}, call.target});
    for (const auto& sample : st.recent)
      if (!sample.target.empty()) done.push_back({{op, sample.seconds, false, sample.end, {}}, sample.target});
  }
  auto slowest_first = [](const Call& a, const Call& b) { return a.first.seconds > b.first.seconds; };
  std::stable_sort(in_flight.begin(), in_flight.end(), slowest_first);
  std::stable_sort(done.begin(), done.end(), slowest_first);
  if (in_flight.size() > kMaxInFlightPodCalls) in_flight.resize(kMaxInFlightPodCalls);
  if (done.size() > kMaxSlowPodCalls) done.resize(kMaxSlowPodCalls);
  in_flight.insert(in_flight.end(), done.begin(), done.end());
  // Resolve only the calls kept: each lookup takes the directory's lock.
  std::vector<Snapshot::PodCall> calls;
  for (auto& [call, target] : in_flight) {
    call.pod = pod_ref(target, find_pod(target));
    calls.push_back(std::move(call));
  }
  return calls;
}

std::map<std::string, PodRef> pods_by_sandbox(const host::HostEvidence& evidence, const PodLookup& find_pod) {
  std::map<std::string, PodRef> pods;
  auto add = [&](const std::string& sandbox) {
    if (sandbox.empty() || pods.count(sandbox)) return;
    CallTarget target{CallTarget::Kind::kSandbox, sandbox};
    if (auto found = find_pod(target)) pods[sandbox] = pod_ref(target, found);
  };
  for (const auto& b : evidence.processes.blocked) add(b.sandbox_id);
  for (const auto& z : evidence.processes.zombie_parents) add(z.sandbox_id);
  return pods;
}

// A shim names its sandbox, a conmon its container (CRI-O's infra container
// has the sandbox's id). Only pods the runtime still lists count: a helper
// of a pod gone from the lists is left unmapped, which is what a leak looks like.
std::map<int64_t, PodRef> shim_pods(const host::HostEvidence& evidence, const PodLookup& find_pod) {
  std::map<int64_t, PodRef> pods;
  for (const auto& h : evidence.processes.helpers) {
    CallTarget target;
    if (h.role == "shim" && !h.sandbox_id.empty())
      target = {CallTarget::Kind::kSandbox, h.sandbox_id};
    else if (h.role == "conmon" && !h.container_id.empty())
      target = {CallTarget::Kind::kContainer, h.container_id};
    else
      continue;
    auto found = find_pod(target);
    if (found && found->listed) {
      PodRef p = pod_ref(target, found);
      p.container_name.clear();  // the helper serves the pod, not one container
      pods[h.pid] = std::move(p);
    }
  }
  return pods;
}

std::map<int64_t, PodRef> zombie_parent_pods(const host::HostEvidence& evidence, const PodLookup& find_pod) {
  std::map<int64_t, PodRef> pods;
  for (const auto& z : evidence.processes.zombie_parents) {
    CallTarget target;
    if (!z.sandbox_id.empty())
      target = {CallTarget::Kind::kSandbox, z.sandbox_id};
    else if (!z.container_id.empty())
      target = {CallTarget::Kind::kContainer, z.container_id};
    else if (!z.pod_uid.empty())
      target = {CallTarget::Kind::kPodUid, z.pod_uid};
    else
      continue;
    PodRef p = pod_ref(target, find_pod(target));
    p.container_name.clear();
    pods[z.pid] = std::move(p);
  }
  return pods;
}

void join_cgroup_v2(Snapshot& s, const PodLookup& find_pod, const ContainerStates& states) {
  const auto& v2 = s.host->cgroup_v2;
  std::vector<std::pair<std::string, std::string>> ids;
  for (const auto& c : v2.containers) ids.emplace_back(c.pod_uid, c.id);
  if (!ids.empty()) s.cgroup_container_states = states(ids);
  auto add = [&](const std::string& uid) {
    if (uid.empty() || s.cgroup_pods.count(uid)) return;
    CallTarget target{CallTarget::Kind::kPodUid, uid};
    if (auto found = find_pod(target)) s.cgroup_pods[uid] = pod_ref(target, found);
  };
  for (const auto& u : v2.units) add(u.pod_uid);
  if (s.cgroup_container_states)
    for (size_t i = 0; i < v2.containers.size(); ++i)
      if (!(*s.cgroup_container_states)[i].empty()) add(v2.containers[i].pod_uid);
}

std::vector<std::string> containers_without_conmon(const host::HostEvidence& evidence, int64_t scanned_at_ns,
                                                   const std::vector<RunningContainer>& running) {
  std::set<std::string> served;
  for (const auto& h : evidence.processes.helpers) {
    if (h.role != "conmon") continue;
    if (h.cmdline_status != "known") return {};
    served.insert(h.container_id);
  }
  std::vector<std::string> out;
  for (const auto& c : running)
    if (c.started_at_ns > 0 && c.started_at_ns < scanned_at_ns && !served.count(c.id)) out.push_back(c.id);
  return out;
}

std::map<std::string, PodRef> unmonitored_pods(const CrioPagesEvidence& pages, const PodLookup& find_pod) {
  std::map<std::string, PodRef> pods;
  for (const auto& u : pages.unmonitored) {
    CallTarget target{CallTarget::Kind::kContainer, u.id};
    pods[u.id] = pod_ref(target, find_pod(target));
  }
  return pods;
}

JournalEvidence journal_evidence(const JournalStatus& status, const UnitRoles& units,
                                 const std::vector<RelistRecord>& timeline, TimePoint now) {
  JournalEvidence j;
  j.available = status.available;
  j.path = status.path;
  j.error = status.error;
  j.kubelet_unit = units.kubelet_unit;
  j.runtime_units = units.runtime_units;
  j.kernel_lines_read = status.kernel_lines_read;
  j.hung_tasks = status.hung_tasks;
  j.hung_tasks_total = status.hung_tasks_total;
  if (status.hung_tasks_suppressed)
    j.hung_tasks_suppressed_since = TimePoint(std::chrono::microseconds(status.hung_tasks_suppressed_since_usec));
  j.marks.reserve(status.marks.size());
  for (const auto& m : status.marks)
    j.marks.push_back({TimePoint(std::chrono::microseconds(m.realtime_usec)), m.unit,
                       std::string(mark_kind_name(m.kind)), m.message});
  summarize_journal_window(j, timeline.empty() ? now : timeline.front().start);
  return j;
}

}  // namespace plegscope

namespace plegscope {

void place_sources(Snapshot& s, SourceEvidence evidence, const UnitRoles& journal_units,
                   const ClockReading& reading) {
  s.runtime_name = evidence.runtime_info.name;
  s.runtime_version = evidence.runtime_info.version;
  s.runtime_config = evidence.runtime_info.config;
  s.pressure = std::move(evidence.pressure);
  s.journal = journal_evidence(evidence.journal, journal_units, s.timeline, s.now);
  s.kubelet = std::move(evidence.kubelet);
  for (KubeletEvidence::CallStep& step : s.kubelet.call_steps) {
    step.from = reading.place(step.monotonic_from);
    step.to = reading.place(step.monotonic_to);
  }
  s.runtime_metrics = std::move(evidence.runtime_metrics);
  s.runtime_status = std::move(evidence.runtime_status);
  // PLEG's error joins the probe's where the kubelet puts it.
  s.kubelet_runtime_errors = kubelet_runtime_errors(s.runtime_status, s.healthy ? "" : s.health_message);
  s.crio_pages = std::move(evidence.crio_pages);
  HostObservation& host = evidence.host;
  if (host.scan) {
    s.host = std::move(host.scan);
    // A blocked task's seconds in D are as of its scan: placed on the wall
    // axis through this snapshot's reading, aged on the monotonic clock.
    s.host_scanned_at = reading.place(host.scanned_at);
    s.zombie_history = std::move(host.zombie_history);
  }
}

void join_pods(Snapshot& s, const PodLookup& find_pod, const ContainerStates& states) {
  s.pod_calls = pod_calls(s.operations, find_pod);
  if (s.host) {
    fill_conmon_sandboxes(*s.host, find_pod);
    s.pods_by_sandbox = pods_by_sandbox(*s.host, find_pod);
    s.shim_pods = shim_pods(*s.host, find_pod);
    s.zombie_parent_pods = zombie_parent_pods(*s.host, find_pod);
    join_cgroup_v2(s, find_pod, states);
  }
  s.unmonitored_pods = unmonitored_pods(s.crio_pages, find_pod);
}

RuntimeFamily watched_family(const RuntimeInfo& info, const std::string& endpoint) {
  return runtime_family(info.name, endpoint);
}

std::set<std::string> pods_in_flight(const std::vector<Snapshot::PodCall>& calls) {
  std::set<std::string> uids;
  for (const auto& call : calls)
    if (call.in_flight && !call.pod.uid.empty()) uids.insert(call.pod.uid);
  return uids;
}

// The endpoint is compared as the host's path, which is what the agent sees
// (the DaemonSet mounts the host's /run/containerd at the same path; a
// bare-host agent shares the host's). No socket when the runtime is not
// containerd (cri-dockerd's shims name Docker's containerd; CRI-O runs
// none): every shim then counts.
HostScanAsks host_scan_asks(double oldest_call_seconds, const std::vector<Snapshot::PodCall>& calls,
                            RuntimeFamily family, const std::string& endpoint) {
  HostScanAsks asks;
  asks.oldest_call_seconds = oldest_call_seconds;
  asks.pods_in_flight = pods_in_flight(calls);
  if (family == RuntimeFamily::kContainerd) asks.runtime_socket = endpoint;
  return asks;
}

CrioPagesAsks crio_pages_asks(const HostObservation& host, const std::vector<RunningContainer>& running,
                              const ClockReading& reading) {
  CrioPagesAsks asks;
  asks.reads_crio = true;
  if (!host.scan) return asks;
  const int64_t scanned_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(reading.place(host.scanned_at).time_since_epoch()).count();
  asks.candidates = containers_without_conmon(*host.scan, scanned_ns, running);
  return asks;
}

}  // namespace plegscope
