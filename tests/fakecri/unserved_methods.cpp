#include "unserved_methods.h"

#include <spdlog/spdlog.h>

namespace fakecri {
namespace {

// Ends the call at once; gRPC deletes nothing itself, so OnDone does.
class Refusal final : public grpc::ServerGenericBidiReactor {
 public:
  explicit Refusal(const std::string& method) {
    Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "fakecri does not serve " + method));
  }
  void OnDone() override { delete this; }
};

}  // namespace

grpc::ServerGenericBidiReactor* UnservedMethods::CreateReactor(grpc::GenericCallbackServerContext* ctx) {
  calls_.unserved(ctx->method(), clock_.now(), grpc::StatusCode::UNIMPLEMENTED);
  spdlog::warn("call to unserved method {}: UNIMPLEMENTED", ctx->method());
  return new Refusal(ctx->method());
}

}  // namespace fakecri
