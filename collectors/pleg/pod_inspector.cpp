#include "pleg/pod_inspector.h"

#include "pleg/runtime_pods.h"

namespace plegscope {
CallResult<PodStatus> inspect_pod(RuntimeClient& runtime, const Clock& clock,
                                  const std::string& uid, const std::string& name,
                                  const std::string& namespace_, InspectionCost& cost) {
  const MonoTime start = clock.monotonic();
  CallResult<PodStatus> result;
  result.value.uid = uid;
  result.value.name = name;
  result.value.namespace_ = namespace_;
  result.value.timestamp = clock.now();  // wall: compared with evented created_at
  auto finish = [&](CallStatus status) {
    cost.time += clock.monotonic() - start;
    result.status = std::move(status);
    return result;
  };

  cri::PodSandboxFilter sandbox_filter;
  (*sandbox_filter.mutable_label_selector())[kPodUidLabel] = uid;
  cost.calls++;
  auto sandboxes = runtime.list_pod_sandboxes(sandbox_filter);
  if (!sandboxes.ok()) return finish(sandboxes.status);
  for (const auto& sandbox : sandboxes.value) {
    cost.calls++;
    auto status = runtime.pod_sandbox_status(sandbox.id());
    // Removed between the list and the status call: gone, not a failure.
    if (status.status.code == GrpcCode::kNotFound) continue;
    if (!status.ok()) return finish(status.status);
    result.value.sandboxes.push_back(status.value.status());
  }

  cri::ContainerFilter container_filter;
  (*container_filter.mutable_label_selector())[kPodUidLabel] = uid;
  cost.calls++;
  auto containers = runtime.list_containers(container_filter);
  if (!containers.ok()) return finish(containers.status);
  for (const auto& container : containers.value) {
    cost.calls++;
    auto status = runtime.container_status(container.id());
    if (status.status.code == GrpcCode::kNotFound) continue;
    if (!status.ok()) return finish(status.status);
    result.value.containers.push_back(status.value.status());
  }
  if (result.value.name.empty() && !result.value.sandboxes.empty()) {
    result.value.name = result.value.sandboxes.front().metadata().name();
    result.value.namespace_ = result.value.sandboxes.front().metadata().namespace_();
  }
  return finish(CallStatus::Ok());
}

CallResult<PodStatus> inspect_listed_pod(RuntimeClient& runtime, const Clock& clock, const RuntimePod& pod,
                                         InspectionCost& cost) {
  const MonoTime start = clock.monotonic();
  CallResult<PodStatus> result;
  result.value.uid = pod.uid;
  result.value.name = pod.name;
  result.value.namespace_ = pod.namespace_;
  result.value.timestamp = clock.now();
  auto finish = [&](CallStatus status) {
    cost.time += clock.monotonic() - start;
    result.status = std::move(status);
    return result;
  };
  for (const auto& sandbox : pod.sandboxes) {
    cost.calls++;
    auto status = runtime.pod_sandbox_status(sandbox.id);
    if (status.status.code == GrpcCode::kNotFound) continue;
    if (!status.ok()) return finish(status.status);
    result.value.sandboxes.push_back(status.value.status());
  }
  for (const auto& container : pod.containers) {
    cost.calls++;
    auto status = runtime.container_status(container.id);
    if (status.status.code == GrpcCode::kNotFound) continue;
    if (!status.ok()) return finish(status.status);
    result.value.containers.push_back(status.value.status());
  }
  return finish(CallStatus::Ok());
}

}  // namespace plegscope
