#pragma once
// gRPC status codes: an enum in code, the spec's spelling ("DEADLINE_EXCEEDED")
// only at the edges (metric labels, reports, scenario files).
#include <string>
#include <vector>

namespace plegscope {

// Values are the gRPC spec's numbers, so a grpc::StatusCode converts by value.
enum class GrpcCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// Any int outside the spec's range is kUnknown, as gRPC itself treats it.
GrpcCode grpc_code(int code);
std::string grpc_code_name(GrpcCode code);
std::string grpc_code_name(int code);
// Every code but OK: the label values a failed call can carry, so labelled
// error counters can exist at 0 before the first error.
std::vector<std::string> grpc_error_code_names();
// Inverse of grpc_code_name; -1 for an unknown name.
int grpc_code_from_name(const std::string& name);

}  // namespace plegscope
