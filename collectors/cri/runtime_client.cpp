#include "cri/runtime_client.h"

namespace plegscope {
namespace {

template <typename Wire, typename Parsed>
CallResult<Wire> as_wire_list(CallResult<Parsed> parsed) {
  CallResult<Wire> out;
  out.status = std::move(parsed.status);
  if (!out.ok()) return out;
  std::string error;
  if (!to_wire_list(parsed.value, out.value, error))
    out.status = CallStatus{GrpcCode::kInternal, error};
  return out;
}

}  // namespace

CallResult<SandboxList> RuntimeClient::list_all_pod_sandboxes() {
  return as_wire_list<SandboxList>(list_pod_sandboxes({}));
}

CallResult<ContainerList> RuntimeClient::list_all_containers() {
  return as_wire_list<ContainerList>(list_containers({}));
}

}  // namespace plegscope
