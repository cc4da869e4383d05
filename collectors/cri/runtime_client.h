#pragma once
// The read-only view of a CRI runtime that plegscope is allowed to have.
// There is deliberately no mutating call here: plegscope can observe a node
// but cannot change it, whatever its configuration.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/call_status.h"
#include "common/clock.h"
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

  // Status without a thread that waits for it (the runtime status probe,
  // which must not hold a shared thread while Status hangs): begin_status()
  // starts one call and returns, status_result() hands its outcome over once
  // it came and nullopt while it is pending, after waiting at most `wait`
  // for it. One call at a time, both from one thread. By default the call is
  // made, blocking, in begin_status(): fakes answer at once; the gRPC client
  // overrides both.
  virtual void begin_status() { status_outcome_ = status(); }
  virtual std::optional<CallResult<cri::StatusResponse>> status_result(Duration /*wait*/ = Duration(0)) {
    auto out = std::move(status_outcome_);
    status_outcome_.reset();
    return out;
  }

 private:
  std::optional<CallResult<cri::StatusResponse>> status_outcome_;
};


}  // namespace plegscope
