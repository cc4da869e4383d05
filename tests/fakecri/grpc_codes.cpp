#include "grpc_codes.h"

#include <array>
#include <utility>

namespace fakecri {

namespace {
constexpr std::array<std::pair<grpc::StatusCode, const char*>, 17> kCodes = {{
    {grpc::StatusCode::OK, "OK"},
    {grpc::StatusCode::CANCELLED, "CANCELLED"},
    {grpc::StatusCode::UNKNOWN, "UNKNOWN"},
    {grpc::StatusCode::INVALID_ARGUMENT, "INVALID_ARGUMENT"},
    {grpc::StatusCode::DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED"},
    {grpc::StatusCode::NOT_FOUND, "NOT_FOUND"},
    {grpc::StatusCode::ALREADY_EXISTS, "ALREADY_EXISTS"},
    {grpc::StatusCode::PERMISSION_DENIED, "PERMISSION_DENIED"},
    {grpc::StatusCode::RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED"},
    {grpc::StatusCode::FAILED_PRECONDITION, "FAILED_PRECONDITION"},
    {grpc::StatusCode::ABORTED, "ABORTED"},
    {grpc::StatusCode::OUT_OF_RANGE, "OUT_OF_RANGE"},
    {grpc::StatusCode::UNIMPLEMENTED, "UNIMPLEMENTED"},
    {grpc::StatusCode::INTERNAL, "INTERNAL"},
    {grpc::StatusCode::UNAVAILABLE, "UNAVAILABLE"},
    {grpc::StatusCode::DATA_LOSS, "DATA_LOSS"},
    {grpc::StatusCode::UNAUTHENTICATED, "UNAUTHENTICATED"},
}};
}  // namespace

std::optional<grpc::StatusCode> parse_status_code(const std::string& name) {
  for (const auto& [code, text] : kCodes) {
    if (name == text) return code;
  }
  return std::nullopt;
}

const char* status_code_name(grpc::StatusCode code) {
  for (const auto& [c, text] : kCodes) {
    if (c == code) return text;
  }
  return "UNKNOWN";
}

}  // namespace fakecri
