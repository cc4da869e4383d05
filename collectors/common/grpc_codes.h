#pragma once
// gRPC status codes at the edges: from the wire's int, every error code's
// label value, and back from the spec's spelling (scenario files, reports
// read back). The enum and its spelling are values: common/grpc_code.h.
#include <string>
#include <vector>

#include "common/grpc_code.h"

namespace plegscope {

// Any int outside the spec's range is kUnknown, as gRPC itself treats it.
GrpcCode grpc_code(int code);
std::string grpc_code_name(int code);
// Every code but OK: the label values a failed call can carry, so labelled
// error counters can exist at 0 before the first error.
std::vector<std::string> grpc_error_code_names();
// Inverse of grpc_code_name; -1 for an unknown name.
int grpc_code_from_name(const std::string& name);

}  // namespace plegscope
