#pragma once
// The report's "runtime_status" section: the runtime's Status as the
// kubelet reads it, and which of the kubelet's two paths to NotReady (30 s
// without a Status sync, or the PLEG's relist threshold) the node is on or
// nearest to.
#include "diagnoser/report.h"
#include "diagnoser/snapshot.h"

namespace plegscope {

// After the causes, the health and the forecast are in `report`.
void fill_runtime_status(const Snapshot& s, Report& report);

}  // namespace plegscope
