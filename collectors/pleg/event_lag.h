#pragma once
// Event lag: how late the PLEG saw a change, from the runtime's own timestamp
// of it (ContainerStatus.started_at, finished_at, created_at; an evented
// event's created_at) to the moment the agent knew it. Pure functions over
// the statuses the relist already fetched (no extra CRI call).
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "cri_runtime_v1.pb.h"
#include "pleg/lag_summary.h"
#include "pleg/pleg.h"

namespace plegscope {

namespace cri = ::runtime::v1;

// What the runtime's timestamp says about one event.
struct LagMeasure {
  enum class Kind {
    kNone,     // the event has no runtime timestamp (removed, a sandbox that died)
    kValid,    // lag holds the delay, >= 0
    kInvalid,  // zero or missing, in the future, or before the container was created
  };
  Kind kind = Kind::kNone;
  Duration lag{0};
};

// `change_nanos`: the runtime's unix-nanosecond timestamp of the change;
// `created_nanos`: the container's created_at (0 when not known or when the
// change is the creation itself); `seen`: wall time the agent knew it.
LagMeasure measure_lag(int64_t change_nanos, int64_t created_nanos, TimePoint seen);

// The runtime timestamp an event of `type` on `container_id` is measured
// from, looked up in the statuses the pod inspection returned. kNone when the
// status does not hold the id (gone before the inspection) or the event has
// no timestamp of its own (ContainerRemoved, a sandbox's death, a change
// that is not a creation).
LagMeasure event_lag(PodLifecycleEventType type, const std::string& container_id,
                     const std::vector<cri::ContainerStatus>& containers,
                     const std::vector<cri::PodSandboxStatus>& sandboxes, TimePoint seen);

}  // namespace plegscope
