#pragma once
// The one error type for the outcome of a runtime call, everywhere past the
// gRPC adapter: a GrpcCode (grpc::StatusCode converts at the adapter, by
// value) with the runtime's message.
#include <string>

#include "common/grpc_codes.h"

namespace plegscope {

struct CallStatus {
  GrpcCode code = GrpcCode::kOk;
  std::string message;
  // Failed in plegscope before anything was sent (no socket): the runtime
  // bore no load from it.
  bool not_sent = false;

  bool ok() const { return code == GrpcCode::kOk; }
  static CallStatus Ok() { return {}; }
  // From a raw gRPC status code (grpc::Status::error_code(), a scenario file).
  static CallStatus from_grpc(int code, std::string message, bool not_sent = false) {
    return {grpc_code(code), std::move(message), not_sent};
  }
};

template <typename T>
struct CallResult {
  CallStatus status;
  T value{};
  bool ok() const { return status.ok(); }
};

}  // namespace plegscope
