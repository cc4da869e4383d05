// The Node's host evidence and per-pod call naming (issue 17), kept apart
// from node.cpp: the scan thread, the pods behind per-pod calls, and the
// pleg_host_* gauges computed at scrape time.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/metric_family.h"
#include "node/node.h"

namespace plegscope {
namespace {

constexpr size_t kMaxInFlightPodCalls = 20;
constexpr size_t kMaxSlowPodCalls = 10;
constexpr size_t kZombieHistory = 24;  // two minutes at the default 5 s

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

std::vector<Snapshot::PodCall> Node::pod_calls(const std::map<std::string, OperationStats>& operations) const {
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
    call.pod = pod_ref(target, pleg_.find_pod(target));
    calls.push_back(std::move(call));
  }
  return calls;
}

void Node::seed_diskstats() {
  if (options_.host_diskstats_before.empty()) return;
  std::ifstream in(options_.host_diskstats_before);
  std::stringstream text;
  text << in.rdbuf();
  auto sample = host::parse_diskstats(text.str());
  if (!sample) {
    spdlog::warn("host: {} is not a diskstats sample; ignored", options_.host_diskstats_before);
    return;
  }
  host_scanner_->set_previous_diskstats(std::move(*sample), std::chrono::steady_clock::now() - std::chrono::seconds(10));
}

void Node::host_scan_tick() {
  const double oldest = tracker_.oldest_in_flight_seconds();
  const bool hang = oldest > to_seconds(options_.hang_threshold);
  const bool on_demand = hang && !hang_scanned_;
  if (!hang) hang_scanned_ = false;
  if (!on_demand && clock_.monotonic() < next_host_scan_) return;
  host::HostEvidence evidence = host_scanner_->scan();
  std::lock_guard<std::mutex> lock(host_mu_);
  zombie_history_.push_back(evidence.processes.zombies);
  if (zombie_history_.size() > kZombieHistory) zombie_history_.erase(zombie_history_.begin());
  host_evidence_ = std::move(evidence);
  host_scanned_ = clock_.monotonic();
  next_host_scan_ = clock_.monotonic() + options_.host_scan_interval;
  if (on_demand) hang_scanned_ = true;
}

std::map<std::string, PodRef> Node::pods_by_sandbox(const host::HostEvidence& evidence) const {
  std::map<std::string, PodRef> pods;
  auto add = [&](const std::string& sandbox) {
    if (sandbox.empty() || pods.count(sandbox)) return;
    CallTarget target{CallTarget::Kind::kSandbox, sandbox};
    if (auto found = pleg_.find_pod(target)) pods[sandbox] = pod_ref(target, found);
  };
  for (const auto& b : evidence.processes.blocked) add(b.sandbox_id);
  for (const auto& z : evidence.processes.zombie_parents) add(z.sandbox_id);
  return pods;
}

void Node::fill_conmon_sandboxes(host::HostEvidence& evidence) const {
  auto fill = [this](std::string& sandbox_id, const std::string& container_id) {
    if (!sandbox_id.empty() || container_id.empty()) return;
    if (auto found = pleg_.find_pod({CallTarget::Kind::kContainer, container_id})) sandbox_id = found->sandbox_id;
  };
  for (auto& b : evidence.processes.blocked) fill(b.sandbox_id, b.container_id);
  for (auto& z : evidence.processes.zombie_parents) fill(z.sandbox_id, z.container_id);
}

// A shim names its sandbox, a conmon its container (CRI-O's infra container
// has the sandbox's id). Only pods the runtime still lists count: a helper
// of a pod gone from the lists is left unmapped, which is what a leak looks like.
std::map<int64_t, PodRef> Node::shim_pods(const host::HostEvidence& evidence) const {
  std::map<int64_t, PodRef> pods;
  for (const auto& h : evidence.processes.helpers) {
    CallTarget target;
    if (h.role == "shim" && !h.sandbox_id.empty())
      target = {CallTarget::Kind::kSandbox, h.sandbox_id};
    else if (h.role == "conmon" && !h.container_id.empty())
      target = {CallTarget::Kind::kContainer, h.container_id};
    else
      continue;
    auto found = pleg_.find_pod(target);
    if (found && found->listed) {
      PodRef p = pod_ref(target, found);
      p.container_name.clear();  // the helper serves the pod, not one container
      pods[h.pid] = std::move(p);
    }
  }
  return pods;
}

std::map<int64_t, PodRef> Node::zombie_parent_pods(const host::HostEvidence& evidence) const {
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
    PodRef p = pod_ref(target, pleg_.find_pod(target));
    p.container_name.clear();
    pods[z.pid] = std::move(p);
  }
  return pods;
}

std::vector<prometheus::MetricFamily> Node::host_families() const {
  std::optional<host::HostEvidence> h;
  {
    std::lock_guard<std::mutex> lock(host_mu_);
    h = host_evidence_;
  }
  if (!h) return {};
  std::vector<prometheus::MetricFamily> families;
  auto blocked = gauge_family("pleg_host_blocked_processes",
                              "Runtime helper processes (shims, conmon, runc) with the process or a thread in state D.");
  std::vector<int64_t> pids;
  for (const auto& b : h->processes.blocked) pids.push_back(b.pid);
  std::sort(pids.begin(), pids.end());
  add_gauge(blocked, {}, static_cast<double>(std::unique(pids.begin(), pids.end()) - pids.begin()));
  families.push_back(blocked);
  if (h->processes.unreadable.empty()) {
    auto zombies = gauge_family("pleg_host_zombie_processes", "Processes in state Z.");
    add_gauge(zombies, {}, static_cast<double>(h->processes.zombies));
    families.push_back(zombies);
  }
  auto ratio = gauge_family("pleg_host_pids_usage_ratio", "pids.current / pids.max of the runtime's cgroup, "
                                                          "of kubepods, and of the node (pid_max, threads-max).");
  // One series per scope; the node's is the tighter of pid_max and threads-max.
  std::map<std::string, double> by_scope;
  for (const auto& l : h->pid_limits) {
    if (!l.ratio || !l.unreadable.empty()) continue;
    std::string scope = l.scope.rfind("node", 0) == 0 ? "node" : l.scope;
    by_scope[scope] = std::max(by_scope[scope], *l.ratio);
  }
  for (const auto& [scope, value] : by_scope) add_gauge(ratio, {{"scope", scope}}, value);
  if (!by_scope.empty()) families.push_back(ratio);
  if (const auto& disk = h->runtime_disk.value; disk && disk->latency_ms && disk->utilization) {
    auto latency = gauge_family("pleg_host_runtime_disk_latency_seconds",
                                "Mean time per completed IO on the runtime root's device over the last interval.");
    add_gauge(latency, {}, *disk->latency_ms / 1000);
    auto util = gauge_family("pleg_host_runtime_disk_utilization",
                             "Share of the last interval the runtime root's device was busy.");
    add_gauge(util, {}, *disk->utilization);
    families.push_back(latency);
    families.push_back(util);
  }
  return families;
}

}  // namespace plegscope
