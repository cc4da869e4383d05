// The kubelet's on-demand relist of one pod (generic.go, 1.36+:
// RequestRelist queues, relistPod runs on the worker loop under the relist
// lock), apart from the global relist in generic_pleg.cpp.
#include <spdlog/spdlog.h>

#include "pleg/generic_pleg.h"

namespace plegscope {

void GenericPleg::request_relist(const std::string& uid) {
  if (!model().pod_relists) return;  // the gate off: RequestRelist returns at once
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    if (pod_relists_.size() >= kPodRelistQueue) {
      // Counted and logged once per hundred: the kubelet logs every drop.
      if (pod_relists_dropped_++ % 100 == 0)
        spdlog::error("Relist request channel full; dropping relist request for pod {} ({} dropped)", uid,
                      pod_relists_dropped_);
      return;
    }
    pod_relists_.push_back({uid, clock_.monotonic()});
  }
  run_cv_.notify_all();
}

size_t GenericPleg::queued_pod_relists() const {
  std::lock_guard<std::mutex> lock(run_mu_);
  return pod_relists_.size();
}

void GenericPleg::relist_pod(const std::string& uid) {
  std::lock_guard<std::mutex> relist_lock(relist_mu_);
  const KubeletModel model = this->model();
  RelistRecord record;
  relist_wall_start_ = clock_.now();
  record.monotonic_start = clock_.monotonic();
  record.in_progress = true;
  const RuntimePod* known = records_.listed_pod(uid);
  if (!known) known = records_.old_pod(uid);
  record.pod = named_pods_.get(uid, known ? known->name : "", known ? known->namespace_ : "");
  // Before the calls: a list that hangs for this pod's uid is named.
  if (known) directory_.remember(*known);
  publish_progress(record);

  cri::PodSandboxFilter sandbox_filter;
  (*sandbox_filter.mutable_label_selector())[kPodUidLabel] = uid;
  cri::ContainerFilter container_filter;
  (*container_filter.mutable_label_selector())[kPodUidLabel] = uid;
  SandboxList sandboxes;
  ContainerList containers;
  std::string decode_error;
  CallStatus status;
  auto listed_sandboxes = runtime_.list_pod_sandboxes(sandbox_filter);
  status = listed_sandboxes.status;
  if (status.ok() && !to_wire_list(listed_sandboxes.value, sandboxes, decode_error))
    status = {GrpcCode::kInternal, decode_error};
  if (status.ok()) {
    record.lists_done = 1;
    record.list_time = clock_.monotonic() - record.monotonic_start;
    publish_progress(record);
    auto listed_containers = runtime_.list_containers(container_filter);
    status = listed_containers.status;
    if (status.ok() && !to_wire_list(listed_containers.value, containers, decode_error))
      status = {GrpcCode::kInternal, decode_error};
    if (status.ok()) record.lists_done = 2;
  }
  record.list_time = clock_.monotonic() - record.monotonic_start;

  if (!status.ok()) {
    // Nothing else to do: the next global relist lists the pod anyway.
    spdlog::warn("GenericPLEG: Unable to retrieve pod {}: {} {}", uid, grpc_code_name(status.code), status.message);
  } else {
    PodGrouping grouping;
    grouping.group(sandboxes, containers);
    std::optional<RuntimePod> pod;
    for (size_t i = 0; i < grouping.size(); ++i)
      if (grouping[i].uid == uid) pod = to_runtime_pod(grouping[i]);
    if (!pod) {
      // kuberuntime's GetPod answers ErrPodNotFound: logged, left to the
      // next global relist.
      spdlog::debug("GenericPLEG: pod {} not found by its on-demand relist", uid);
    } else {
      record.pod = named_pods_.get(uid, pod->name, pod->namespace_);
      record.pods = 1;
      record.sandboxes = static_cast<int>(pod->sandboxes.size());
      record.containers = static_cast<int>(pod->containers.size());
      // An unchanged pod keeps no current record (it is its old one): no
      // events to compare for, only an owed re-inspection to make.
      std::vector<PodLifecycleEvent> events;
      if (records_.set_current_pod(std::move(*pod))) events = records_.events_for(uid, relist_wall_start_);
      record.events_found = static_cast<int>(events.size());
      record.pods_changed = events.empty() ? 0 : 1;
      publish_progress(record);
      reconcile(uid, events, record, model);
      publish_reinspect_count();
    }
  }
  const Duration took = clock_.monotonic() - record.monotonic_start;
  metrics_.pod_relist_duration().Observe(to_seconds(took));
  std::lock_guard<std::mutex> lock(state_mu_);
  in_progress_.reset();
}

}  // namespace plegscope
