#pragma once
// The gRPC adapter: runtime.v1 RuntimeService on top of the SimulatedNode.
// Each handler logs the call, suffers the phase's faults (hang, latency,
// injected error) and answers from the model. Thread-safe (the sync gRPC
// server calls handlers concurrently).
#include "call_log.h"
#include "cri_runtime_v1.grpc.pb.h"
#include "event_bus.h"
#include "fault_injector.h"
#include "node_model.h"

namespace fakecri {

class RuntimeService final : public cri::RuntimeService::Service {
 public:
  RuntimeService(const RuntimeInfo& info, SimulatedNode& node, FaultInjector& faults, CallLog& calls,
                 EventBus& events, const Clock& clock);

  grpc::Status Version(grpc::ServerContext*, const cri::VersionRequest*, cri::VersionResponse*) override;
  grpc::Status Status(grpc::ServerContext*, const cri::StatusRequest*, cri::StatusResponse*) override;
  grpc::Status ListPodSandbox(grpc::ServerContext*, const cri::ListPodSandboxRequest*,
                              cri::ListPodSandboxResponse*) override;
  grpc::Status PodSandboxStatus(grpc::ServerContext*, const cri::PodSandboxStatusRequest*,
                                cri::PodSandboxStatusResponse*) override;
  grpc::Status ListContainers(grpc::ServerContext*, const cri::ListContainersRequest*,
                              cri::ListContainersResponse*) override;
  grpc::Status ContainerStatus(grpc::ServerContext*, const cri::ContainerStatusRequest*,
                               cri::ContainerStatusResponse*) override;
  grpc::Status GetContainerEvents(grpc::ServerContext*, const cri::GetEventsRequest*,
                                  grpc::ServerWriter<cri::ContainerEventResponse>*) override;
  grpc::Status StreamPodSandboxes(grpc::ServerContext*, const cri::StreamPodSandboxesRequest*,
                                  grpc::ServerWriter<cri::StreamPodSandboxesResponse>*) override;
  grpc::Status StreamContainers(grpc::ServerContext*, const cri::StreamContainersRequest*,
                                grpc::ServerWriter<cri::StreamContainersResponse>*) override;
  grpc::Status RuntimeConfig(grpc::ServerContext*, const cri::RuntimeConfigRequest*,
                             cri::RuntimeConfigResponse*) override;

  grpc::Status RunPodSandbox(grpc::ServerContext*, const cri::RunPodSandboxRequest*,
                             cri::RunPodSandboxResponse*) override;
  grpc::Status StopPodSandbox(grpc::ServerContext*, const cri::StopPodSandboxRequest*,
                              cri::StopPodSandboxResponse*) override;
  grpc::Status RemovePodSandbox(grpc::ServerContext*, const cri::RemovePodSandboxRequest*,
                                cri::RemovePodSandboxResponse*) override;
  grpc::Status CreateContainer(grpc::ServerContext*, const cri::CreateContainerRequest*,
                               cri::CreateContainerResponse*) override;
  grpc::Status StartContainer(grpc::ServerContext*, const cri::StartContainerRequest*,
                              cri::StartContainerResponse*) override;
  grpc::Status StopContainer(grpc::ServerContext*, const cri::StopContainerRequest*,
                             cri::StopContainerResponse*) override;
  grpc::Status RemoveContainer(grpc::ServerContext*, const cri::RemoveContainerRequest*,
                               cri::RemoveContainerResponse*) override;

 private:
  // The body answers the call and reports how many items it produced (for
  // per-item latency); it runs only if no fault ended the call first.
  using Body = std::function<grpc::Status(const FaultInjector::Plan&, size_t& items)>;
  grpc::Status serve(Op op, grpc::ServerContext* ctx, bool filtered, const FaultInjector::TargetFn& target,
                     const Body& body);
  grpc::Status unimplemented(Op op);
  std::optional<int> target_of(const SandboxQuery& q) const;
  std::optional<int> target_of(const ContainerQuery& q) const;

  RuntimeInfo info_;
  SimulatedNode& node_;
  FaultInjector& faults_;
  CallLog& calls_;
  EventBus& events_;
  const Clock& clock_;
};

}  // namespace fakecri
