#pragma once
// The in-process consumer of PLEG events (the kubelet's syncLoop reads the
// same channel) keeps the last N for /debug/events.
#include "common/bounded_history.h"
#include "pleg/pleg.h"

namespace plegscope {

using EventLog = BoundedHistory<PodLifecycleEvent>;

}  // namespace plegscope
