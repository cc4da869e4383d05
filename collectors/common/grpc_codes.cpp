#include "common/grpc_codes.h"

namespace plegscope {

GrpcCode grpc_code(int code) {
  if (code >= 0 && code < kGrpcCodeCount) return static_cast<GrpcCode>(code);
  return GrpcCode::kUnknown;
}

std::string grpc_code_name(int code) { return grpc_code_name(grpc_code(code)); }

std::vector<std::string> grpc_error_code_names() {
  std::vector<std::string> names;
  for (int code = 1; code < kGrpcCodeCount; ++code) names.emplace_back(grpc_code_name(static_cast<GrpcCode>(code)));
  return names;
}

int grpc_code_from_name(const std::string& name) {
  for (int code = 0; code < kGrpcCodeCount; ++code)
    if (name == grpc_code_name(static_cast<GrpcCode>(code))) return code;
  return -1;
}

}  // namespace plegscope
