#pragma once
// container_lock_stall's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// Another client's call inside the runtime holds a container's lock.
template <>
struct CauseDetails<CauseId::kContainerLockStall> {
  std::string endpoint;          // the runtime's metrics page
  std::string method;            // the gRPC method inside the runtime, "UpdateContainerResources"
  double in_flight_count = 0;    // calls of `method` in flight
  double threshold_seconds = 0;  // what the held call's `seconds` was judged against
  bool call_in_flight = false;   // a PLEG call still in flight is among the slow ones
};
using ContainerLockStallDetails = CauseDetails<CauseId::kContainerLockStall>;

}  // namespace plegscope
