#pragma once
// The read-only view of a CRI runtime that plegscope is allowed to have.
// There is deliberately no mutating call here: plegscope can observe a node
// but cannot change it, whatever its configuration.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/call_status.h"
#include "common/grpc_codes.h"
#include "cri/list_answer.h"
#include "cri/list_wire.h"
#include "cri/operation_names.h"
#include "cri_runtime_v1.pb.h"

namespace plegscope {

namespace cri = ::runtime::v1;

// Receives runtime container events (GetContainerEvents). Return false to end the stream.
using ContainerEventHandler = std::function<bool(const cri::ContainerEventResponse&)>;

// Thread-safe: calls may be issued from several threads at once.
class RuntimeClient {
 public:
  virtual ~RuntimeClient() = default;

  virtual CallResult<cri::VersionResponse> version() = 0;
  virtual CallResult<cri::StatusResponse> status() = 0;
  virtual CallResult<ListAnswer<cri::PodSandbox>> list_pod_sandboxes(
      const cri::PodSandboxFilter& filter) = 0;
  virtual CallResult<ListAnswer<cri::Container>> list_containers(
      const cri::ContainerFilter& filter) = 0;
  // The relist's unfiltered lists, as the answers' bytes with views of the
  // fields it reads (list_wire.h). By default the parsed lists, serialized:
  // a client that can receive the bytes themselves overrides these.
  virtual CallResult<SandboxList> list_all_pod_sandboxes();
  virtual CallResult<ContainerList> list_all_containers();
  virtual CallResult<cri::PodSandboxStatusResponse> pod_sandbox_status(const std::string& id) = 0;
  virtual CallResult<cri::ContainerStatusResponse> container_status(const std::string& id) = 0;
  // Blocks, delivering events to `handler`, until the stream ends, fails,
  // the handler returns false, or cancel_event_stream() is called.
  virtual CallStatus watch_container_events(const ContainerEventHandler& handler) = 0;
  virtual void cancel_event_stream() {}
};


}  // namespace plegscope
