#pragma once
// The gRPC adapter behind RuntimeClient: one channel to the runtime's unix
// socket, a deadline on every call, every call timed by OperationTracker.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/flag_declaration.h"
#include "cri/operation_tracker.h"
#include "cri/runtime_client.h"
#include "cri_runtime_v1.grpc.pb.h"

namespace plegscope {

// When lists are streamed (StreamPodSandboxes / StreamContainers) rather than
// unary. The kubelet streams only with its alpha CRIListStreaming gate on,
// and the 16 MiB limit belongs to its unary path: the agent lists as the
// kubelet beside it does, or it would read a node the kubelet cannot.
enum class ListStreaming {
  kFollowKubelet,  // unary, streamed once the kubelet beside shows the gate on
  kOn,
  kOff,
};

struct GrpcClientOptions {
  std::string endpoint;  // "unix:///run/containerd/containerd.sock" or a bare path
  Duration request_timeout = std::chrono::minutes(2);
  // The kubelet's limit; a larger list answer fails with RESOURCE_EXHAUSTED.
  int max_receive_bytes = 16 * 1024 * 1024;
  ListStreaming list_streaming = ListStreaming::kFollowKubelet;
};

// --container-runtime-endpoint, --runtime-request-timeout, --cri-list-streaming
// (cri_flags.cpp).
void add_flags(CLI::App& app, GrpcClientOptions& options);
// The candidate sockets tried, in order, when no endpoint is given.
extern const std::vector<std::string> kDefaultRuntimeEndpoints;
// The first candidate that exists, else the first.
std::string detect_runtime_endpoint();

// Accepts "unix:///path", "unix:/path" or "/path"; nullopt for anything else.
std::optional<std::string> unix_socket_path(const std::string& endpoint);

// Thread-safe.
class GrpcRuntimeClient final : public RuntimeClient {
 public:
  GrpcRuntimeClient(GrpcClientOptions options, OperationTracker& tracker, const Clock& clock);
  ~GrpcRuntimeClient() override;

  CallResult<cri::VersionResponse> version() override;
  // Version with a deadline of its own, shorter than request_timeout: the
  // caller shares its thread with other bounded jobs. (gRPC's callback API
  // would need no waiting thread, but starts two threads of its own.)
  CallResult<cri::VersionResponse> version_within(Duration timeout);
  CallResult<cri::StatusResponse> status() override;
  // RuntimeConfig, a read (api.proto: "returns configuration information of
  // the runtime"), with a bounded deadline as version_within().
  CallResult<cri::RuntimeConfigResponse> runtime_config_within(Duration timeout);
  // Status on a completion queue of its own, collected by polling: no
  // thread waits while the runtime's Status hangs. Deadline: request_timeout.
  void begin_status() override;
  std::optional<CallResult<cri::StatusResponse>> status_result(Duration wait = Duration(0)) override;
  CallResult<ListAnswer<cri::PodSandbox>> list_pod_sandboxes(
      const cri::PodSandboxFilter& filter) override;
  CallResult<ListAnswer<cri::Container>> list_containers(
      const cri::ContainerFilter& filter) override;
  // The answers' bytes straight from gRPC, never parsed into messages
  // (list_wire.h), unary or streamed alike.
  CallResult<plegscope::SandboxList> list_all_pod_sandboxes() override;
  CallResult<plegscope::ContainerList> list_all_containers() override;
  CallResult<cri::PodSandboxStatusResponse> pod_sandbox_status(const std::string& id) override;
  CallResult<cri::ContainerStatusResponse> container_status(const std::string& id) override;
  CallStatus watch_container_events(const ContainerEventHandler& handler) override;
  void cancel_event_stream() override;
  // Cancels every call in flight and fails every later one at once (CANCELLED),
  // so shutdown never waits on a hung runtime.
  void shutdown();

  // Follows the kubelet's CRIListStreaming gate once it is read.
  void set_list_streaming(bool on) { list_streaming_ = on; }
  bool list_streaming() const { return list_streaming_; }
  // Whether the runtime answered a streaming list call with UNIMPLEMENTED.
  bool pod_sandbox_streaming_unsupported() const { return sandbox_stream_unimplemented_; }
  bool container_streaming_unsupported() const { return container_stream_unimplemented_; }

 private:
  // One call with a deadline, timed by the tracker; the socket already checked.
  template <typename Call>
  CallStatus tracked(const char* op, Call&& call, CallTarget target = {});
  template <typename Response, typename Call>
  CallResult<Response> unary(const char* op, Call&& call, CallTarget target = {});
  struct SandboxCalls;
  struct ContainerCalls;
  template <typename L>
  CallResult<ListAnswer<typename L::Item>> list(const typename L::Filter& filter,
                                                std::atomic<bool>& stream_unimplemented);
  template <typename L>
  CallResult<ListAnswer<typename L::Item>> streamed_list(const typename L::Filter& filter,
                                                         bool unfiltered);
  template <typename L, typename Wire>
  CallResult<Wire> wire_list(const grpc::internal::RpcMethod& method);
  template <typename L, typename Wire>
  CallResult<Wire> streamed_wire_list(const grpc::internal::RpcMethod& stream_method);
  // The unfiltered list: streamed where the kubelet streams and the runtime
  // can, else the unary answer; either way as bytes, never parsed messages.
  template <typename L, typename Wire>
  CallResult<Wire> unfiltered_list(const grpc::internal::RpcMethod& method,
                                   const grpc::internal::RpcMethod& stream_method,
                                   std::atomic<bool>& stream_unimplemented);
  std::optional<CallStatus> socket_problem() const;
  // Registers the call with the tracker, cancelling it at once if shutdown started.
  OperationTracker::CallId begin_call(const char* op, grpc::ClientContext& ctx, CallTarget target);
  void set_deadline(grpc::ClientContext& ctx) const;

  const GrpcClientOptions options_;
  OperationTracker& tracker_;
  const Clock& clock_;
  std::string socket_path_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<cri::RuntimeService::Stub> stub_;
  // The list methods, unary and streamed, called with byte buffers for answers.
  std::unique_ptr<grpc::internal::RpcMethod> list_sandboxes_method_;
  std::unique_ptr<grpc::internal::RpcMethod> list_containers_method_;
  std::unique_ptr<grpc::internal::RpcMethod> stream_sandboxes_method_;
  std::unique_ptr<grpc::internal::RpcMethod> stream_containers_method_;
  std::atomic<bool> list_streaming_;
  std::atomic<bool> sandbox_stream_unimplemented_{false};
  std::atomic<bool> container_stream_unimplemented_{false};
  std::atomic<bool> shutting_down_{false};
  // The one Status begun by begin_status(), until status_result() collects
  // it; only the probe's thread touches these (shutdown() cancels through
  // the tracker).
  struct PendingStatus {
    grpc::ClientContext ctx;
    cri::StatusResponse response;
    grpc::Status status;
    std::unique_ptr<grpc::ClientAsyncResponseReader<cri::StatusResponse>> reader;
    OperationTracker::CallId id = 0;
  };
  std::unique_ptr<grpc::CompletionQueue> status_cq_;
  std::unique_ptr<PendingStatus> pending_status_;
  std::optional<CallResult<cri::StatusResponse>> status_outcome_;
  std::mutex event_mu_;
  grpc::ClientContext* event_ctx_ = nullptr;
  bool event_cancelled_ = false;
};

}  // namespace plegscope
