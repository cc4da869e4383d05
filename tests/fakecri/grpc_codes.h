#pragma once
// gRPC status code names as scenarios and the call log spell them
// ("UNAVAILABLE", "RESOURCE_EXHAUSTED").
#include <grpcpp/support/status.h>

#include <optional>
#include <string>

namespace fakecri {

std::optional<grpc::StatusCode> parse_status_code(const std::string& name);
std::string status_code_name(grpc::StatusCode code);

}  // namespace fakecri
