#pragma once
// The catch-all for every gRPC method the fake does not serve: other
// RuntimeService methods (ExecSync, UpdateContainerResources, ...), the whole
// ImageService, anything. Each call is logged by its full path and answered
// UNIMPLEMENTED, so the read-only proof sees calls the fake cannot answer.
//
// An async generic service on a completion queue of its own, drained by one
// thread blocked in Next(). Not a callback service: gRPC 1.51 serves those
// from threads that, after each idle second, sleep 100 ms while holding the
// server's poller, so every call that followed an idle second (a relist each
// second) waited 100 ms before the fake even read it.
#include <grpcpp/generic/async_generic_service.h>

#include <mutex>
#include <thread>

#include "call_log.h"
#include "clock.h"
#include "grpc_endpoint.h"

namespace fakecri {

class UnservedMethods final : public CatchAll {
 public:
  UnservedMethods(CallLog& calls, const Clock& clock) : calls_(calls), clock_(clock) {}
  ~UnservedMethods() override;

  void add_to(grpc::ServerBuilder& builder) override;
  void start() override;
  void stop() override;

 private:
  struct Call;
  void await_next_call();  // with mu_ held
  void drain();

  CallLog& calls_;
  const Clock& clock_;
  grpc::AsyncGenericService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::mutex mu_;
  bool stopping_ = false;  // no new work may be queued on cq_ once it is shut down
  std::thread drainer_;
};

}  // namespace fakecri
