// Status without a waiting thread (the runtime status probe): the call
// waits on a completion queue of its own, looked at without blocking.
#include <grpcpp/grpcpp.h>

#include "cri/grpc_runtime_client.h"

namespace plegscope {

void GrpcRuntimeClient::begin_status() {
  if (pending_status_ || status_outcome_) return;
  if (auto problem = socket_problem()) {
    tracker_.record(op::kStatus, static_cast<int>(problem->code), 0);
    status_outcome_ = CallResult<cri::StatusResponse>{*problem, {}};
    return;
  }
  auto p = std::make_unique<PendingStatus>();
  set_deadline(p->ctx);
  p->id = begin_call(op::kStatus, p->ctx, {});
  p->reader = stub_->PrepareAsyncStatus(&p->ctx, cri::StatusRequest(), status_cq_.get());
  p->reader->StartCall();
  p->reader->Finish(&p->response, &p->status, p.get());
  pending_status_ = std::move(p);
}

std::optional<CallResult<cri::StatusResponse>> GrpcRuntimeClient::status_result(Duration wait) {
  if (status_outcome_) {
    auto out = std::move(status_outcome_);
    status_outcome_.reset();
    return out;
  }
  if (!pending_status_) return std::nullopt;
  void* tag = nullptr;
  bool ok = false;
  // A zero wait looks and never waits; the answer is timed when it is taken
  // from the queue.
  const gpr_timespec deadline =
      gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_nanos(wait.count(), GPR_TIMESPAN));
  if (status_cq_->AsyncNext(&tag, &ok, deadline) != grpc::CompletionQueue::GOT_EVENT) return std::nullopt;
  PendingStatus& p = *pending_status_;
  tracker_.end(p.id, p.status.error_code());
  CallResult<cri::StatusResponse> out{CallStatus::from_grpc(p.status.error_code(), p.status.error_message()),
                                      std::move(p.response)};
  pending_status_.reset();
  return out;
}

GrpcRuntimeClient::~GrpcRuntimeClient() {
  // The pending Status owns the context gRPC still writes to: cancel it and
  // wait for its completion (at once, once cancelled) before both go.
  if (pending_status_) pending_status_->ctx.TryCancel();
  status_cq_->Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (status_cq_->Next(&tag, &ok)) {
  }
}

}  // namespace plegscope
