#pragma once
// gRPC status codes as a value: an enum in code, the spec's spelling
// ("DEADLINE_EXCEEDED") only at the edges (metric labels, reports, scenario
// files). Conversions from ints and names: common/grpc_codes.h.

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
inline constexpr int kGrpcCodeCount = 17;

// The spec's spelling of a code.
constexpr const char* grpc_code_name(GrpcCode code) {
  switch (code) {
    case GrpcCode::kOk: return "OK";
    case GrpcCode::kCancelled: return "CANCELLED";
    case GrpcCode::kUnknown: return "UNKNOWN";
    case GrpcCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case GrpcCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case GrpcCode::kNotFound: return "NOT_FOUND";
    case GrpcCode::kAlreadyExists: return "ALREADY_EXISTS";
    case GrpcCode::kPermissionDenied: return "PERMISSION_DENIED";
    case GrpcCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case GrpcCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case GrpcCode::kAborted: return "ABORTED";
    case GrpcCode::kOutOfRange: return "OUT_OF_RANGE";
    case GrpcCode::kUnimplemented: return "UNIMPLEMENTED";
    case GrpcCode::kInternal: return "INTERNAL";
    case GrpcCode::kUnavailable: return "UNAVAILABLE";
    case GrpcCode::kDataLoss: return "DATA_LOSS";
    case GrpcCode::kUnauthenticated: return "UNAUTHENTICATED";
  }
  return "UNKNOWN";
}

}  // namespace plegscope
