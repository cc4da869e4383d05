#include "pleg/relist_steps.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "pleg/pod_inspector.h"

namespace plegscope {

std::array<int, 4> count_container_states(const ContainerList& containers) {
  std::array<int, 4> by_state{};
  for (const auto& c : containers)
    by_state[static_cast<size_t>(from_cri(static_cast<cri::ContainerState>(c.state)))]++;
  return by_state;
}

int count_running_pods(const PodGrouping& grouping) {
  int running = 0;
  for (size_t i = 0; i < grouping.size(); ++i) {
    const auto& sandboxes = grouping[i].sandboxes;
    running += std::any_of(sandboxes.begin(), sandboxes.end(),
                           [](const auto* s) { return s->state == cri::SANDBOX_READY; });
  }
  return running;
}

EventsByPod compute_events(PodRecords& records, const PodGrouping& grouping, TimePoint seen) {
  EventsByPod events_by_pod;
  for (const std::string& uid : records.set_current(grouping)) {
    auto events = records.events_for(uid, seen);
    if (!events.empty()) events_by_pod.emplace(uid, std::move(events));
  }
  return events_by_pod;
}

std::shared_ptr<const NamedPod> NamedPods::get(const std::string& uid, const std::string& name,
                                               const std::string& namespace_) {
  auto& slot = by_uid_[uid];
  auto named = slot.lock();
  if (!named || named->name != name || named->namespace_ != namespace_) {
    named = std::make_shared<const NamedPod>(NamedPod{uid, name, namespace_});
    slot = named;
  }
  // Pods the timeline no longer names are forgotten in one sweep whenever
  // the map has doubled since the last, so it stays within twice the pods
  // the records hold.
  if (by_uid_.size() >= prune_at_) {
    for (auto it = by_uid_.begin(); it != by_uid_.end();) it = it->second.expired() ? by_uid_.erase(it) : ++it;
    prune_at_ = std::max<size_t>(64, 2 * by_uid_.size());
  }
  return named;
}

std::vector<PodEventCount> top_pods(const EventsByPod& events, size_t limit, NamedPods& named_pods) {
  std::vector<const EventsByPod::value_type*> busiest;
  busiest.reserve(events.size());
  for (const auto& pod : events) busiest.push_back(&pod);
  std::stable_sort(busiest.begin(), busiest.end(),
                   [](const auto* a, const auto* b) { return a->second.size() > b->second.size(); });
  if (busiest.size() > limit) busiest.resize(limit);
  std::vector<PodEventCount> top;
  top.reserve(busiest.size());
  for (const auto* pod : busiest) {
    const PodLifecycleEvent& first = pod->second.front();
    top.push_back({named_pods.get(pod->first, first.pod_name, first.pod_namespace),
                   static_cast<int>(pod->second.size())});
  }
  return top;
}

bool update_cache(RuntimeClient& runtime, const Clock& clock, PodStatusCache& cache,
                  const std::string& uid, const RuntimePod* pod, bool lists, RelistRecord& record,
                  const InspectedStatus& inspected) {
  if (pod == nullptr) {
    // The pod is gone from the runtime: nothing to inspect.
    cache.remove(uid);
    return true;
  }
  InspectionCost cost;
  auto status = lists ? inspect_pod(runtime, clock, uid, pod->name, pod->namespace_, cost)
                      : inspect_listed_pod(runtime, clock, *pod, cost);
  record.status_calls += cost.calls;
  record.status_time += cost.time;
  record.pods_inspected++;
  if (!status.ok()) {
    record.inspection_failures++;
    spdlog::debug("PLEG: pod {}/{} ({}) failed inspection: {} {}", pod->namespace_, pod->name, uid,
                  grpc_code_name(status.status.code), status.status.message);
    return false;
  }
  if (inspected) inspected(status.value);
  cache.set(std::move(status.value));
  return true;
}

void record_lag(const std::vector<PodLifecycleEvent>& events, const PodStatus& status,
                TimePoint seen, PlegMetrics& metrics, LagSummary& summary) {
  for (const auto& e : events) {
    LagMeasure m = event_lag(e.type, e.container_id, status.containers, status.sandboxes, seen);
    if (m.kind == LagMeasure::Kind::kNone) continue;
    if (m.kind == LagMeasure::Kind::kInvalid) {
      metrics.event_lag_invalid(e.type).Increment();
      summary.add_invalid();
      continue;
    }
    metrics.event_lag(e.type).Observe(to_seconds(m.lag));
    summary.add({e.pod_uid, e.pod_namespace, e.pod_name,
                 e.container_name.empty() ? e.container_id : e.container_name, e.type, m.lag});
  }
}

}  // namespace plegscope
