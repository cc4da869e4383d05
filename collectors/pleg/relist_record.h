#pragma once
// What one relist cost and found, kept for the timeline of /diagnose. The
// relist in progress is published as one too, filled in as it goes, so a
// diagnosis never has to wait for a slow relist to end.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/grpc_code.h"
#include "pleg/lag_buckets.h"
#include "pleg/pod_lifecycle_event.h"

namespace plegscope {

// Who a pod is. The relist timeline shares one per pod among its records:
// the busiest pods of one relist are mostly those of the last (a
// crash-looping pod tops record after record), so 600 records of ten hold a
// few dozen of these instead of 6,000 copies of three strings.
struct NamedPod {
  std::string uid;
  std::string name;
  std::string namespace_;
};

struct PodEventCount {
  std::shared_ptr<const NamedPod> pod;  // never null
  int events = 0;

  static PodEventCount of(std::string uid, std::string name, std::string namespace_, int events) {
    return {std::make_shared<const NamedPod>(NamedPod{std::move(uid), std::move(name), std::move(namespace_)}),
            events};
  }
};

struct RelistRecord {
  // Wall time, for the timeline: placed from monotonic_start by the reader
  // of the record (the node's snapshot), never set by the PLEG.
  TimePoint start{};
  MonoTime monotonic_start{};  // the same instant on the monotonic clock, for durations
  Duration duration{0};     // so far, while in progress
  bool initial = false;     // the first relist: every pod is new and inspected once
  bool in_progress = false;
  int lists_done = 0;       // 0, 1 (sandboxes listed) or 2 (containers too)
  int pods_changed = 0;     // pods with events, known as soon as the lists are compared
  int events_found = 0;     // events found by that comparison
  int pods_inspected = 0;   // of the changed pods, inspected so far
  Duration list_time{0};    // ListPodSandbox + ListContainers
  Duration status_time{0};  // per-pod inspections, reinspections included
  int status_calls = 0;
  int pods = 0;
  int sandboxes = 0;
  int containers = 0;
  int running_containers = 0;
  int exited_containers = 0;
  std::array<int, std::size(kAllEventTypes)> events_by_type{};  // indexed like kAllEventTypes
  int events_discarded = 0;
  int pods_with_events = 0;
  int pods_to_reinspect = 0;
  int inspection_failures = 0;
  uint64_t list_bytes = 0;
  std::optional<GrpcCode> error_code;  // when the relist failed
  std::string error_message;
  std::vector<PodEventCount> top_pods;  // most events first, at most kTopPods
  // Set for an on-demand relist of this one pod (the kubelet's relistPod,
  // 1.36+): it runs on the relist's worker and lock, so while it hangs the
  // global relist cannot start. Such a record is published as the relist in
  // progress, never added to the timeline.
  std::shared_ptr<const NamedPod> pod;
  // How late this relist saw the changes it emitted events for, from the
  // runtime's timestamps (none on the initial relist: the agent was not
  // watching before it). Reinspected pods' held-back events count here too.
  LagSummary lag;

  static constexpr size_t kTopPods = 10;
  int total_events() const {
    int n = 0;
    for (int c : events_by_type) n += c;
    return n;
  }
};

}  // namespace plegscope
