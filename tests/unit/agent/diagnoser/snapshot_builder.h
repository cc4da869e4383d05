#pragma once
// Snapshots built by hand for the diagnoser's tests: a healthy node (20
// relists over the last 20 s after an initial relist a minute ago, fast
// calls, no pressure) that each test bends into its situation.
#include <memory>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "cri/connect_problem.h"
#include "cri/kubelet_runtime_errors.h"
#include "cri/operation_names.h"
#include "diagnoser/diagnoser.h"
#include "host/kernel_stacks.h"
#include "report/wording.h"

namespace plegscope::testing {

using std::chrono::milliseconds;
using std::chrono::seconds;

inline const TimePoint kNow = TimePoint(seconds(1'790'000'000));

inline Duration secs(double s) { return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s)); }

inline RelistRecord relist(double duration = 0.005, double list = 0.002, double status = 0.001) {
  RelistRecord r;
  r.duration = secs(duration);
  r.list_time = secs(list);
  r.status_time = secs(status);
  r.pods = 10;
  r.sandboxes = 10;
  r.containers = 20;
  r.running_containers = 20;
  return r;
}

// Recent calls over the last 20 s: the two oldest at p99, the rest at p50.
inline OperationStats op_stats(double p50, double p99, uint64_t count = 100) {
  OperationStats s;
  s.count = count;
  s.p50_seconds = p50;
  s.p99_seconds = p99;
  s.max_seconds = p99;
  const size_t n = std::min<uint64_t>(count, 100);
  for (size_t i = 0; i < n; ++i)
    s.recent.push_back({kNow - secs(20.0 * static_cast<double>(n - i) / static_cast<double>(n)), i < 2 ? p99 : p50,
                        GrpcCode::kOk, {}});
  return s;
}

inline RelistRecord storm_relist(int pods_with_events, double status_time = 0.1) {
  RelistRecord r = relist(status_time + 0.01, 0.005, status_time);
  r.pods_with_events = pods_with_events;
  r.events_by_type[0] = pods_with_events;
  r.events_by_type[1] = pods_with_events;
  return r;
}

// A healthy node: 20 relists over the last 20 s (plus the first, warm-up
// relist a minute ago), fast calls, no events, no pressure.
struct Builder {
  Snapshot s;
  Builder() {
    s.node = "worker-3";
    s.now = kNow;
    s.healthy = true;
    s.last_seen = kNow - seconds(1);
    s.endpoint = "unix:///run/containerd/containerd.sock";
    s.socket_present = true;
    s.runtime_name = "containerd";
    s.runtime_version = "1.6.20";
    RelistRecord warmup = relist(0.08, 0.002, 0.07);
    warmup.start = kNow - seconds(60);
    warmup.initial = true;
    s.timeline.push_back(warmup);
    relists(20, relist());
    s.operations[op::kListPodSandbox] = op_stats(0.001, 0.002);
    s.operations[op::kListContainers] = op_stats(0.001, 0.002);
    s.operations[op::kPodSandboxStatus] = op_stats(0.001, 0.002);
    s.operations[op::kContainerStatus] = op_stats(0.001, 0.002);
    NodePressure p;
    p.cpu_some_avg10 = 0.1;
    p.io_some_avg10 = 0.0;
    p.memory_some_avg10 = 0.0;
    p.load1 = 0.5;
    p.cpus = 4;
    p.pids = 1234;
    p.pid_max = 4194304;
    p.threads_max = 253444;
    s.pressure = p;
  }
  // Replaces the recent relists: n of them, one a second, the last ending now.
  Builder& relists(int n, const RelistRecord& proto) {
    s.timeline.resize(1);
    for (int i = 0; i < n; ++i) {
      RelistRecord r = proto;
      r.start = kNow - seconds(n - i);
      s.timeline.push_back(r);
    }
    return *this;
  }
  // `op` has a call in flight for `seconds`, on `target` (none: unfiltered).
  Builder& call_in_flight(const std::string& op, double seconds, CallTarget target = {}) {
    OperationStats& st = s.operations[op];
    st.in_flight = 1;
    st.oldest_in_flight_seconds = seconds;
    st.in_flight_calls.push_back({seconds, std::move(target)});
    return *this;
  }
  // The snapshot as the collectors and the node hand it over: what they
  // read from the raw evidence a test sets (the agent's blindness from the
  // connect problem, the kubelet's Ready message and runtime errors, what
  // each blocked task's kernel stack says), read here by the same functions.
  Snapshot handed_over() const {
    Snapshot out = s;
    out.agent_blind = agent_side(out.unreachable);
    if (out.kubelet.ready_message) out.kubelet.ready_says = read_ready_message(*out.kubelet.ready_message);
    out.kubelet_runtime_errors = kubelet_runtime_errors(out.runtime_status, out.healthy ? "" : out.health_message);
    if (out.host)
      for (auto& task : out.host->processes.blocked) task.kernel_meaning = host::stack_meaning(task.kernel_stack);
    return out;
  }
  // The report as the operator reads it: the diagnoser's findings, worded.
  Report report(DiagnoserThresholds t = {}) const { return worded(diagnose(handed_over(), t)); }
  Report findings(DiagnoserThresholds t = {}) const { return diagnose(handed_over(), t); }
};

inline const Cause* find(const Report& r, CauseId id) {
  for (const auto& c : r.causes)
    if (c.id == id) return &c;
  return nullptr;
}

// A report built inside the call dies at the end of the statement: the cause
// found in it is handed out as a copy, so a test cannot keep a dangling pointer.
inline std::unique_ptr<const Cause> find(Report&& r, CauseId id) {
  const Cause* c = find(static_cast<const Report&>(r), id);
  return c ? std::make_unique<const Cause>(*c) : nullptr;
}

inline bool has_evidence(const Cause& c, const std::string& prefix) {
  for (const auto& e : c.evidence)
    if (e.signal.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace plegscope::testing
