#pragma once
// One report for the renderers' tests: at risk with a hung ListContainers,
// five completed relists (the third failed) and, optionally, the relist in
// progress as the timeline's last entry.
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "diagnoser/report.h"

namespace plegscope::testing {

using std::chrono::seconds;

// Not kNow: snapshot_builder.h has one, and both link into report_unit_tests
// (an ODR clash the sanitizer build showed: it picked the other one).
inline const TimePoint kReportNow = TimePoint(seconds(1'790'000'000)) + std::chrono::milliseconds(250);

inline Report sample() {
  Report r;
  r.node = "worker-3";
  r.generated_at = kReportNow;
  r.healthy = true;
  r.status = Status::kAtRisk;
  r.summary = "PLEG is at risk because ListContainers has been in flight for 12s: restart it.";
  Cause c;
  c.id = CauseId::kRuntimeHung;
  c.severity = Severity::kCritical;
  c.confidence = 0.85;
  c.summary = "A CRI call is hung.";
  c.evidence = {{"oldest_in_flight_seconds{list_containers}", 12.5, 10},
                {"in_flight{list_containers}", 1, {}}};
  c.remedy = "Confirm: `crictl ps -a` hangs.";
  r.causes.push_back(c);
  r.relist.seconds_since_last_seen = 13.5;
  r.relist.in_progress_seconds = 12.5;
  r.relist.duration_p50_seconds = 0.004;
  r.relist.duration_p99_seconds = 0.07;
  r.runtime = {"unix:///run/containerd/containerd.sock", "containerd", "1.6.20", {}, {}};
  OperationReport op;
  op.count = 15;
  op.in_flight = 1;
  op.oldest_in_flight_seconds = 12.5;
  r.runtime.operations["list_containers"] = op;
  r.pods = {10, 20, 20, 0, 0};
  r.events.per_relist_p99 = 2;
  r.events.by_type = {{"ContainerStarted", 30}, {"ContainerDied", 2}};
  r.events.top_pods = {{"uid-1", "default", "pod-1", 3}};
  r.node_pressure.cpu_some_avg10 = 0.12;
  r.node_pressure.load1 = 0.52;
  r.node_pressure.pids = 1234;
  r.node_pressure.pid_max = 4194304;
  for (int i = 0; i < 5; ++i) {
    TimelineEntry e;
    e.start = kReportNow - seconds(20 - i);
    e.duration_seconds = 0.004 + i * 0.001;
    e.list_seconds = 0.002;
    e.status_seconds = 0.001;
    e.pods = 10;
    e.containers = 20;
    e.initial = i == 0;
    if (i == 2) e.error = GrpcCode::kUnavailable;
    r.timeline.push_back(e);
  }
  r.seconds_to_unhealthy = 166.5;
  return r;
}

// The relist running for 42 s: lists done in 8 s, 14 status calls in 3.1 s
// for the 20 events found so far; events reach the kubelet 9.6 s late.
inline Report slow_relist_in_progress() {
  Report r = sample();
  TimelineEntry e;
  e.start = kReportNow - seconds(42);
  e.in_progress = true;
  e.duration_seconds = 42;
  e.list_seconds = 8;
  e.status_seconds = 3.1;
  e.status_calls = 14;
  e.pods = 20;
  e.containers = 40;
  e.events = 20;
  e.lists_done = 2;
  e.pods_changed = 20;
  e.pods_inspected = 6;
  r.timeline.push_back(e);
  r.relist.in_progress_seconds = 42;
  r.relist.events_late_by_seconds = 9.6;
  return r;
}

// The keys of a JSON object, to compare a rendered object's fields with a list.
inline std::set<std::string> keys(const nlohmann::json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

}  // namespace plegscope::testing
