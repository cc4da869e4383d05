#include "common/grpc_codes.h"

#include <array>

namespace plegscope {
namespace {
constexpr std::array<const char*, 17> kCodeNames = {
    "OK",        "CANCELLED",          "UNKNOWN",           "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS",     "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",             "ABORTED",           "OUT_OF_RANGE",     "UNIMPLEMENTED",
    "INTERNAL",  "UNAVAILABLE",        "DATA_LOSS",         "UNAUTHENTICATED"};
}  // namespace

GrpcCode grpc_code(int code) {
  if (code >= 0 && code < static_cast<int>(kCodeNames.size())) return static_cast<GrpcCode>(code);
  return GrpcCode::kUnknown;
}

std::string grpc_code_name(GrpcCode code) { return kCodeNames[static_cast<size_t>(code)]; }

std::string grpc_code_name(int code) { return grpc_code_name(grpc_code(code)); }

std::vector<std::string> grpc_error_code_names() {
  return std::vector<std::string>(kCodeNames.begin() + 1, kCodeNames.end());
}

int grpc_code_from_name(const std::string& name) {
  for (size_t i = 0; i < kCodeNames.size(); ++i)
    if (name == kCodeNames[i]) return static_cast<int>(i);
  return -1;
}

}  // namespace plegscope
