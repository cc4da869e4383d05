#include "grpc_codes.h"

#include "common/grpc_codes.h"

namespace fakecri {

std::optional<grpc::StatusCode> parse_status_code(const std::string& name) {
  int code = plegscope::grpc_code_from_name(name);
  if (code < 0) return std::nullopt;
  return static_cast<grpc::StatusCode>(code);
}

std::string status_code_name(grpc::StatusCode code) {
  return plegscope::grpc_code_name(static_cast<int>(code));
}

}  // namespace fakecri
