#pragma once
// The catch-all for every gRPC method the fake does not serve: other
// RuntimeService methods (ExecSync, UpdateContainerResources, ...), the whole
// ImageService, anything. Each call is logged by its full path and answered
// UNIMPLEMENTED, so the read-only proof sees calls the fake cannot answer.
#include <grpcpp/generic/async_generic_service.h>

#include "call_log.h"
#include "clock.h"

namespace fakecri {

class UnservedMethods final : public grpc::CallbackGenericService {
 public:
  UnservedMethods(CallLog& calls, const Clock& clock) : calls_(calls), clock_(clock) {}
  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* ctx) override;

 private:
  CallLog& calls_;
  const Clock& clock_;
};

}  // namespace fakecri
