#include "cri/grpc_runtime_client.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>

#include <algorithm>
#include <string_view>

#include "cri/kubernetes_labels.h"
#include "cri/runtime_socket.h"

namespace plegscope {
namespace {

// gRPC's default reconnect back-off grows to 120 s; a runtime that restarts
// must be found again within about a second of its socket returning.
constexpr int kInitialReconnectBackoffMs = 100;
constexpr int kMaxReconnectBackoffMs = 1000;
// gRPC takes MIN_RECONNECT_BACKOFF as the least time one connection attempt
// may take, handshake included. A runtime slow to answer on a loaded node is
// slow, not gone: give it gRPC's default (as the kubelet's Go client does),
// and leave hangs to the calls' own deadlines.
constexpr int kMinConnectTimeoutMs = 20'000;

bool is_unfiltered(const cri::PodSandboxFilter& f) {
  return f.id().empty() && !f.has_state() && f.label_selector().empty();
}
bool is_unfiltered(const cri::ContainerFilter& f) {
  return f.id().empty() && !f.has_state() && f.pod_sandbox_id().empty() &&
         f.label_selector().empty();
}

// The pod a filtered list is for, as the kubelet filters its per-pod lists.
template <typename Filter>
CallTarget list_target(const Filter& f) {
  auto uid = f.label_selector().find(kPodUidLabel);
  if (uid != f.label_selector().end()) return {CallTarget::Kind::kPodUid, uid->second};
  return {};
}

// Calls every CRI runtime answers; the optional ones (events, the list
// streams) may say UNIMPLEMENTED on a real runtime.
bool required_by_cri(const char* op) {
  const std::string_view o(op);
  return o == op::kVersion || o == op::kStatus || o == op::kListPodSandbox || o == op::kListContainers;
}

}  // namespace

std::optional<std::string> unix_socket_path(const std::string& endpoint) {
  if (endpoint.rfind("unix://", 0) == 0) {
    std::string path = endpoint.substr(7);
    if (!path.empty() && path[0] == '/') return path;
    return std::nullopt;
  }
  if (endpoint.rfind("unix:", 0) == 0 && endpoint.size() > 5 && endpoint[5] == '/')
    return endpoint.substr(5);
  if (!endpoint.empty() && endpoint[0] == '/') return endpoint;
  return std::nullopt;
}

GrpcRuntimeClient::GrpcRuntimeClient(GrpcClientOptions options, OperationTracker& tracker,
                                     const Clock& clock)
    : options_(std::move(options)), tracker_(tracker), clock_(clock), 
      list_streaming_(options_.list_streaming == ListStreaming::kOn) {
  socket_path_ = unix_socket_path(options_.endpoint).value_or("");
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options_.max_receive_bytes);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, kInitialReconnectBackoffMs);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, kMinConnectTimeoutMs);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, kMaxReconnectBackoffMs);
  // Never route a local unix socket through an HTTP proxy from the environment.
  args.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  channel_ = grpc::CreateCustomChannel("unix://" + socket_path_,
                                      grpc::InsecureChannelCredentials(), args);
  stub_ = cri::RuntimeService::NewStub(channel_);
  status_cq_ = std::make_unique<grpc::CompletionQueue>();
  using grpc::internal::RpcMethod;
  list_sandboxes_method_ = std::make_unique<RpcMethod>(
      "/runtime.v1.RuntimeService/ListPodSandbox", RpcMethod::NORMAL_RPC, channel_);
  list_containers_method_ = std::make_unique<RpcMethod>(
      "/runtime.v1.RuntimeService/ListContainers", RpcMethod::NORMAL_RPC, channel_);
  stream_sandboxes_method_ = std::make_unique<RpcMethod>(
      "/runtime.v1.RuntimeService/StreamPodSandboxes", RpcMethod::SERVER_STREAMING, channel_);
  stream_containers_method_ = std::make_unique<RpcMethod>(
      "/runtime.v1.RuntimeService/StreamContainers", RpcMethod::SERVER_STREAMING, channel_);
}

OperationTracker::CallId GrpcRuntimeClient::begin_call(const char* op, grpc::ClientContext& ctx,
                                                       CallTarget target) {
  auto id = tracker_.begin(op, [&ctx] { ctx.TryCancel(); }, std::move(target));
  if (shutting_down_) ctx.TryCancel();
  return id;
}

void GrpcRuntimeClient::shutdown() {
  shutting_down_ = true;
  cancel_event_stream();
  tracker_.cancel_all();
}

std::optional<CallStatus> GrpcRuntimeClient::socket_problem() const {
  if (shutting_down_)
    return CallStatus{GrpcCode::kCancelled, "plegscope is shutting down", true};
  switch (socket_state_at(socket_path_)) {
    case SocketState::kNotAUnixPath:
      return CallStatus{GrpcCode::kInvalidArgument,
                        "endpoint " + options_.endpoint + " is not a unix socket address", true};
    case SocketState::kMissing:
      tracker_.note_unreachable(ConnectProblem::kNoSuchSocket);
      return CallStatus{GrpcCode::kUnavailable, "socket " + socket_path_ + " does not exist", true};
    case SocketState::kNotASocket:
      tracker_.note_unreachable(ConnectProblem::kNotASocket);
      return CallStatus{GrpcCode::kUnavailable, socket_path_ + " is not a socket", true};
    case SocketState::kSocket:
      break;
  }
  return std::nullopt;
}

namespace {

// A deadline `timeout` from now on gRPC's own monotonic clock: the call's
// real bound on the wire, whatever the injected clock or a wall-clock step says.
gpr_timespec deadline_after(Duration timeout) {
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_nanos(timeout.count(), GPR_TIMESPAN));
}

}  // namespace

void GrpcRuntimeClient::set_deadline(grpc::ClientContext& ctx) const {
  ctx.set_deadline(deadline_after(options_.request_timeout));
}

template <typename Call>
CallStatus GrpcRuntimeClient::tracked(const char* op, Call&& call, CallTarget target) {
  grpc::ClientContext ctx;
  set_deadline(ctx);
  auto id = begin_call(op, ctx, std::move(target));
  grpc::Status st = call(ctx);
  tracker_.end(id, st.error_code());
  // gRPC words a refused or denied connect as UNAVAILABLE; the agent's own
  // connect() names which (a socket access is no CRI call). A peer that
  // accepts yet never answers in gRPC, or answers UNIMPLEMENTED to a call
  // every CRI runtime serves, is not a CRI runtime (after_history).
  if (st.error_code() == grpc::StatusCode::UNAVAILABLE)
    tracker_.note_unreachable(probe_connect(socket_path_));
  else if (st.error_code() == grpc::StatusCode::UNIMPLEMENTED && required_by_cri(op))
    tracker_.note_unreachable(ConnectProblem::kNotCri);
  else if (st.ok())
    tracker_.note_answered();
  return CallStatus::from_grpc(st.error_code(), st.error_message());
}

template <typename Response, typename Call>
CallResult<Response> GrpcRuntimeClient::unary(const char* op, Call&& call, CallTarget target) {
  CallResult<Response> result;
  if (auto problem = socket_problem()) {
    tracker_.record(op, static_cast<int>(problem->code), 0);
    result.status = *problem;
    return result;
  }
  result.status = tracked(
      op, [&](grpc::ClientContext& ctx) { return call(ctx, result.value); }, std::move(target));
  return result;
}

CallResult<cri::VersionResponse> GrpcRuntimeClient::version() {
  return unary<cri::VersionResponse>(op::kVersion, [&](auto& ctx, auto& out) {
    cri::VersionRequest req;
    req.set_version("v1");
    return stub_->Version(&ctx, req, &out);
  });
}

CallResult<cri::VersionResponse> GrpcRuntimeClient::version_within(Duration timeout) {
  return unary<cri::VersionResponse>(op::kVersion, [&](auto& ctx, auto& out) {
    if (timeout < options_.request_timeout) ctx.set_deadline(deadline_after(timeout));
    cri::VersionRequest req;
    req.set_version("v1");
    return stub_->Version(&ctx, req, &out);
  });
}

CallResult<cri::RuntimeConfigResponse> GrpcRuntimeClient::runtime_config_within(Duration timeout) {
  return unary<cri::RuntimeConfigResponse>(op::kRuntimeConfig, [&](auto& ctx, auto& out) {
    if (timeout < options_.request_timeout) ctx.set_deadline(deadline_after(timeout));
    return stub_->RuntimeConfig(&ctx, cri::RuntimeConfigRequest(), &out);
  });
}

CallResult<cri::StatusResponse> GrpcRuntimeClient::status() {
  return unary<cri::StatusResponse>(op::kStatus, [&](auto& ctx, auto& out) {
    return stub_->Status(&ctx, cri::StatusRequest(), &out);
  });
}

CallResult<cri::PodSandboxStatusResponse> GrpcRuntimeClient::pod_sandbox_status(
    const std::string& id) {
  return unary<cri::PodSandboxStatusResponse>(op::kPodSandboxStatus, [&](auto& ctx, auto& out) {
    cri::PodSandboxStatusRequest req;
    req.set_pod_sandbox_id(id);
    return stub_->PodSandboxStatus(&ctx, req, &out);
  }, CallTarget{CallTarget::Kind::kSandbox, id});
}

CallResult<cri::ContainerStatusResponse> GrpcRuntimeClient::container_status(
    const std::string& id) {
  return unary<cri::ContainerStatusResponse>(op::kContainerStatus, [&](auto& ctx, auto& out) {
    cri::ContainerStatusRequest req;
    req.set_container_id(id);
    return stub_->ContainerStatus(&ctx, req, &out);
  }, CallTarget{CallTarget::Kind::kContainer, id});
}

// The two list calls differ only in their message types and stub methods.
struct GrpcRuntimeClient::SandboxCalls {
  using Item = cri::PodSandbox;
  using Filter = cri::PodSandboxFilter;
  using StreamRequest = cri::StreamPodSandboxesRequest;
  using StreamResponse = cri::StreamPodSandboxesResponse;
  using Request = cri::ListPodSandboxRequest;
  using Response = cri::ListPodSandboxResponse;
  static constexpr const char* kOp = op::kListPodSandbox;
  static constexpr const char* kStreamOp = op::kStreamPodSandboxes;
  static auto open_stream(cri::RuntimeService::Stub& stub, grpc::ClientContext* ctx,
                          const StreamRequest& r) {
    return stub.StreamPodSandboxes(ctx, r);
  }
  static grpc::Status call(cri::RuntimeService::Stub& stub, grpc::ClientContext* ctx,
                           const Request& r, Response* out) {
    return stub.ListPodSandbox(ctx, r, out);
  }
  static auto* streamed_items(StreamResponse& m) { return m.mutable_pod_sandboxes(); }
  static auto* items(Response& r) { return r.mutable_items(); }
};

struct GrpcRuntimeClient::ContainerCalls {
  using Item = cri::Container;
  using Filter = cri::ContainerFilter;
  using StreamRequest = cri::StreamContainersRequest;
  using StreamResponse = cri::StreamContainersResponse;
  using Request = cri::ListContainersRequest;
  using Response = cri::ListContainersResponse;
  static constexpr const char* kOp = op::kListContainers;
  static constexpr const char* kStreamOp = op::kStreamContainers;
  static auto open_stream(cri::RuntimeService::Stub& stub, grpc::ClientContext* ctx,
                          const StreamRequest& r) {
    return stub.StreamContainers(ctx, r);
  }
  static grpc::Status call(cri::RuntimeService::Stub& stub, grpc::ClientContext* ctx,
                           const Request& r, Response* out) {
    return stub.ListContainers(ctx, r, out);
  }
  static auto* streamed_items(StreamResponse& m) { return m.mutable_containers(); }
  static auto* items(Response& r) { return r.mutable_containers(); }
};

namespace {

// An unfiltered answer on a big node is megabytes: large blocks keep the
// arena's block count small; a filtered answer (one pod) fits the defaults.
std::shared_ptr<google::protobuf::Arena> list_arena(bool unfiltered) {
  if (!unfiltered) return std::make_shared<google::protobuf::Arena>();
  google::protobuf::ArenaOptions options;
  options.start_block_size = 64 * 1024;
  options.max_block_size = 1024 * 1024;
  return std::make_shared<google::protobuf::Arena>(options);
}

}  // namespace

template <typename L>
CallResult<ListAnswer<typename L::Item>> GrpcRuntimeClient::streamed_list(
    const typename L::Filter& filter, bool unfiltered) {
  using google::protobuf::Arena;
  typename L::StreamRequest request;
  *request.mutable_filter() = filter;
  auto arena = list_arena(unfiltered);
  auto* items = L::items(*Arena::CreateMessage<typename L::Response>(arena.get()));
  uint64_t bytes = 0;
  std::vector<typename L::Item*> moved;
  CallStatus status = tracked(L::kStreamOp, [&](grpc::ClientContext& ctx) {
    auto reader = L::open_stream(*stub_, &ctx, request);
    // Each message carries a list of any length; every item moves onto the
    // answer's arena in order, without a copy.
    for (;;) {
      auto* msg = Arena::CreateMessage<typename L::StreamResponse>(arena.get());
      if (!reader->Read(msg)) break;
      bytes += msg->ByteSizeLong();
      auto* batch = L::streamed_items(*msg);
      moved.resize(static_cast<size_t>(batch->size()));
      batch->UnsafeArenaExtractSubrange(0, batch->size(), moved.data());
      for (auto* item : moved) items->UnsafeArenaAddAllocated(item);
    }
    return reader->Finish();
  }, list_target(filter));
  // A broken stream's partial list is never used.
  if (!status.ok()) return {status, {}};
  if (unfiltered) tracker_.record_list_size(L::kOp, bytes, static_cast<uint64_t>(items->size()));
  return {status, ListAnswer<typename L::Item>(std::move(arena), items)};
}

template <typename L>
CallResult<ListAnswer<typename L::Item>> GrpcRuntimeClient::list(
    const typename L::Filter& filter, std::atomic<bool>& stream_unimplemented) {
  if (auto problem = socket_problem()) {
    tracker_.record(L::kOp, static_cast<int>(problem->code), 0);
    return {*problem, {}};
  }
  const bool unfiltered = is_unfiltered(filter);
  // Streamed only where the kubelet streams (list_streaming()); a runtime's
  // UNIMPLEMENTED is remembered and answered by the unary call from then on,
  // as the kubelet falls back.
  if (list_streaming() && !stream_unimplemented) {
    auto streamed = streamed_list<L>(filter, unfiltered);
    if (streamed.status.code != GrpcCode::kUnimplemented) return streamed;
    stream_unimplemented = true;
  }
  // Parsed straight onto the arena the answer keeps: no copy, no per-item free.
  auto arena = list_arena(unfiltered);
  auto* response = google::protobuf::Arena::CreateMessage<typename L::Response>(arena.get());
  CallStatus status = tracked(L::kOp, [&](grpc::ClientContext& ctx) {
    typename L::Request req;
    *req.mutable_filter() = filter;
    return L::call(*stub_, &ctx, req, response);
  }, list_target(filter));
  if (!status.ok()) return {status, {}};
  auto* items = L::items(*response);
  if (unfiltered)
    tracker_.record_list_size(L::kOp, response->ByteSizeLong(), static_cast<uint64_t>(items->size()));
  return {status, ListAnswer<typename L::Item>(std::move(arena), items)};
}

CallResult<ListAnswer<cri::PodSandbox>> GrpcRuntimeClient::list_pod_sandboxes(
    const cri::PodSandboxFilter& filter) {
  return list<SandboxCalls>(filter, sandbox_stream_unimplemented_);
}

CallResult<ListAnswer<cri::Container>> GrpcRuntimeClient::list_containers(
    const cri::ContainerFilter& filter) {
  return list<ContainerCalls>(filter, container_stream_unimplemented_);
}

namespace {

// gRPC's receive slices, kept alive by the list decoded in them.
using Slices = std::shared_ptr<std::vector<grpc::Slice>>;

// Appends a received message's slices; false when its bytes are unreadable.
bool keep_slices(grpc::ByteBuffer& message, std::vector<grpc::Slice>& slices) {
  std::vector<grpc::Slice> part;
  if (!message.Dump(&part).ok()) return false;
  message.Clear();
  slices.insert(slices.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
  return true;
}

// Decodes the list in place in the slices, which it keeps: no copy of the answer.
template <typename Wire>
grpc::Status decode_in_slices(Slices slices, Wire& list) {
  std::vector<std::string_view> pieces;
  pieces.reserve(slices->size());
  for (const auto& slice : *slices)
    pieces.emplace_back(reinterpret_cast<const char*>(slice.begin()), slice.size());
  std::string error;
  if (!list.assign_pieces(pieces, std::move(slices), error))
    return grpc::Status(grpc::StatusCode::INTERNAL, error);
  return grpc::Status::OK;
}

}  // namespace

template <typename L, typename Wire>
CallResult<Wire> GrpcRuntimeClient::wire_list(const grpc::internal::RpcMethod& method) {
  CallResult<Wire> out;
  if (auto problem = socket_problem()) {
    tracker_.record(L::kOp, static_cast<int>(problem->code), 0);
    out.status = *problem;
    return out;
  }
  // Decoding is part of the call, as parsing is for a message answer.
  out.status = tracked(L::kOp, [&](grpc::ClientContext& ctx) {
    grpc::ByteBuffer reply;
    // The call the generated stub makes, with a byte buffer for the answer.
    grpc::Status st = grpc::internal::BlockingUnaryCall<typename L::Request, grpc::ByteBuffer,
                                                        grpc::protobuf::MessageLite, grpc::ByteBuffer>(
        channel_.get(), method, &ctx, typename L::Request(), &reply);
    if (!st.ok()) return st;
    auto slices = std::make_shared<std::vector<grpc::Slice>>();
    if (!keep_slices(reply, *slices)) return grpc::Status(grpc::StatusCode::INTERNAL, "unreadable answer");
    return decode_in_slices(std::move(slices), out.value);
  });
  if (out.ok()) tracker_.record_list_size(L::kOp, out.value.byte_size(), out.value.size());
  return out;
}

// A streamed list's messages each hold the list field with the unary
// answer's number and type, so their bytes laid end to end are the unary
// answer's encoding: decoded as one, at the unary read's cost.
template <typename L, typename Wire>
CallResult<Wire> GrpcRuntimeClient::streamed_wire_list(const grpc::internal::RpcMethod& method) {
  CallResult<Wire> out;
  out.status = tracked(L::kStreamOp, [&](grpc::ClientContext& ctx) {
    std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
        grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(channel_.get(), method, &ctx,
                                                                       typename L::StreamRequest()));
    auto slices = std::make_shared<std::vector<grpc::Slice>>();
    grpc::ByteBuffer message;
    bool readable = true;
    while (readable && reader->Read(&message)) readable = keep_slices(message, *slices);
    if (!readable) ctx.TryCancel();
    grpc::Status st = reader->Finish();
    // A broken stream's partial list is never used.
    if (!readable) return grpc::Status(grpc::StatusCode::INTERNAL, "unreadable answer");
    if (!st.ok()) return st;
    return decode_in_slices(std::move(slices), out.value);
  });
  if (out.ok()) tracker_.record_list_size(L::kOp, out.value.byte_size(), out.value.size());
  return out;
}

template <typename L, typename Wire>
CallResult<Wire> GrpcRuntimeClient::unfiltered_list(const grpc::internal::RpcMethod& method,
                                                    const grpc::internal::RpcMethod& stream_method,
                                                    std::atomic<bool>& stream_unimplemented) {
  if (list_streaming() && !stream_unimplemented && !socket_problem()) {
    auto streamed = streamed_wire_list<L, Wire>(stream_method);
    if (streamed.status.code != GrpcCode::kUnimplemented) return streamed;
    stream_unimplemented = true;
  }
  return wire_list<L, Wire>(method);
}

CallResult<plegscope::SandboxList> GrpcRuntimeClient::list_all_pod_sandboxes() {
  return unfiltered_list<SandboxCalls, plegscope::SandboxList>(*list_sandboxes_method_, *stream_sandboxes_method_,
                                                               sandbox_stream_unimplemented_);
}

CallResult<plegscope::ContainerList> GrpcRuntimeClient::list_all_containers() {
  return unfiltered_list<ContainerCalls, plegscope::ContainerList>(*list_containers_method_,
                                                                   *stream_containers_method_,
                                                                   container_stream_unimplemented_);
}

}  // namespace plegscope
