#pragma once
// gRPC status code names as the gRPC spec spells them ("DEADLINE_EXCEEDED"),
// used in metric labels, reports and scenario files alike.
#include <string>

namespace plegscope {

std::string grpc_code_name(int code);
// Inverse of grpc_code_name; -1 for an unknown name.
int grpc_code_from_name(const std::string& name);

}  // namespace plegscope
