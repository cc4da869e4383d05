// The runtime's event stream (GetContainerEvents): long-lived, so it is
// counted and timed once it ends, never tracked as a call in flight, and it
// can be cancelled from another thread at shutdown.
#include <grpcpp/grpcpp.h>

#include "cri/grpc_runtime_client.h"

namespace plegscope {

CallStatus GrpcRuntimeClient::watch_container_events(const ContainerEventHandler& handler) {
  if (auto problem = socket_problem()) {
    tracker_.record(op::kGetContainerEvents, static_cast<int>(problem->code), 0);
    return *problem;
  }
  grpc::ClientContext ctx;
  {
    std::lock_guard<std::mutex> lock(event_mu_);
    if (event_cancelled_) return CallStatus{GrpcCode::kCancelled, "event stream cancelled"};
    event_ctx_ = &ctx;
  }
  const MonoTime start = clock_.monotonic();
  auto reader = stub_->GetContainerEvents(&ctx, cri::GetEventsRequest());
  cri::ContainerEventResponse event;
  bool stopped_by_handler = false;
  while (reader->Read(&event)) {
    if (!handler(event)) {
      stopped_by_handler = true;
      ctx.TryCancel();
      break;
    }
  }
  grpc::Status st = reader->Finish();
  {
    std::lock_guard<std::mutex> lock(event_mu_);
    event_ctx_ = nullptr;
  }
  int code = stopped_by_handler ? 0 : st.error_code();
  tracker_.record(op::kGetContainerEvents, code, to_seconds(clock_.monotonic() - start));
  if (stopped_by_handler) return CallStatus::Ok();
  if (st.ok()) return CallStatus{GrpcCode::kUnavailable, "event stream ended by the runtime"};
  return CallStatus::from_grpc(st.error_code(), st.error_message());
}

void GrpcRuntimeClient::cancel_event_stream() {
  std::lock_guard<std::mutex> lock(event_mu_);
  event_cancelled_ = true;
  if (event_ctx_) event_ctx_->TryCancel();
}

}  // namespace plegscope
