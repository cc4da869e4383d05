#include "unserved_methods.h"

#include <spdlog/spdlog.h>

namespace fakecri {

struct UnservedMethods::Call {
  grpc::GenericServerContext ctx;
  grpc::GenericServerAsyncReaderWriter stream{&ctx};
  bool answered = false;  // its tag next comes back from Finish, not from the request
};

UnservedMethods::~UnservedMethods() { stop(); }

void UnservedMethods::add_to(grpc::ServerBuilder& builder) {
  builder.RegisterAsyncGenericService(&service_);
  cq_ = builder.AddCompletionQueue();
}

void UnservedMethods::start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    await_next_call();
  }
  drainer_ = std::thread([this] { drain(); });
}

void UnservedMethods::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || !cq_) return;
    stopping_ = true;
    cq_->Shutdown();
  }
  if (drainer_.joinable()) drainer_.join();
}

void UnservedMethods::await_next_call() {
  auto* call = new Call;
  service_.RequestCall(&call->ctx, &call->stream, cq_.get(), cq_.get(), call);
}

void UnservedMethods::drain() {
  void* tag = nullptr;
  bool ok = false;
  while (cq_->Next(&tag, &ok)) {
    auto* call = static_cast<Call*>(tag);
    if (call->answered || !ok) {  // done, or never started (the server is shutting down)
      delete call;
      continue;
    }
    const std::string method = call->ctx.method();
    calls_.unserved(method, clock_.now(), grpc::StatusCode::UNIMPLEMENTED);
    spdlog::warn("call to unserved method {}: UNIMPLEMENTED", method);
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      delete call;
      continue;
    }
    await_next_call();
    call->answered = true;
    call->stream.Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "fakecri does not serve " + method), call);
  }
}

}  // namespace fakecri
