#pragma once
// The steps of one generic relist, each callable alone (generic.go's relist:
// set the current records, compute events per pod, update the cache,
// reinspect). GenericPleg::relist() runs them in order under its lock.
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "cri/runtime_client.h"
#include "pleg/event_lag.h"
#include "pleg/pleg.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_records.h"
#include "pleg/pod_status_cache.h"
#include "pleg/relist_record.h"
#include "pleg/runtime_pods.h"

namespace plegscope {

// Events found by one relist, per pod uid; delivered in this (uid) order.
using EventsByPod = std::map<std::string, std::vector<PodLifecycleEvent>>;

// Containers the runtime listed, indexed by RuntimeState.
std::array<int, 4> count_container_states(const ContainerList& containers);
// Pods with a READY sandbox.
int count_running_pods(const PodGrouping& grouping);

// podRecords.setCurrent, then computeEvents for every pod that may have
// changed. Pods whose comparison finds nothing (a restart of the same ids in
// the same states) are left out.
EventsByPod compute_events(PodRecords& records, const PodGrouping& grouping, TimePoint seen);

// The pods with the most events, most first, at most `limit`.
// The identities the relist timeline's records share, one per pod while a
// record names it: looked up by uid, and forgotten once no record holds it.
class NamedPods {
 public:
  std::shared_ptr<const NamedPod> get(const std::string& uid, const std::string& name,
                                         const std::string& namespace_);
  size_t size() const { return by_uid_.size(); }

 private:
  std::unordered_map<std::string, std::weak_ptr<const NamedPod>> by_uid_;
  size_t prune_at_ = 64;
};

std::vector<PodEventCount> top_pods(const EventsByPod& events, size_t limit, NamedPods& named_pods);

// updateCache for one pod: inspect it (GetPodStatus's calls: with the lists
// when `lists`, as the kubelet up to 1.35, else from the relist's ids) and
// store the status, or remove the pod when it is gone from the runtime
// (`pod` null).
// Adds the inspection's cost to `record`; `inspected` sees the status just
// before the cache takes it (lag is measured there, without a copy). Returns
// false when the inspection failed.
using InspectedStatus = std::function<void(const PodStatus&)>;
bool update_cache(RuntimeClient& runtime, const Clock& clock, PodStatusCache& cache,
                  const std::string& uid, const RuntimePod* pod, bool lists, RelistRecord& record,
                  const InspectedStatus& inspected = {});

// Measures every event of one pod against the status its inspection found,
// known at wall time `seen`: valid lags into the histogram and `summary`,
// invalid ones counted apart.
void record_lag(const std::vector<PodLifecycleEvent>& events, const PodStatus& status,
                TimePoint seen, PlegMetrics& metrics, LagSummary& summary);

}  // namespace plegscope
