#pragma once
// Every runtime shim and conmon with the pod it serves, for the
// report's host.processes.shims. Stateless.
#include <cstddef>

#include "diagnoser/report.h"
#include "diagnoser/snapshot.h"

namespace plegscope {

// At most this many shims are listed; shims_total counts them all.
constexpr size_t kMaxShimsListed = 512;

// Fills processes.shims and shims_total from the scan's helpers (shims and
// conmons only: not runc/crun, not the daemon) and snapshot.shim_pods.
// Sorted by pod then pid, so the unmapped ones ("" pod) come first and a
// bound never hides one.
void fill_shims(const Snapshot& snapshot, HostReport::Processes& processes, size_t max_listed = kMaxShimsListed);

}  // namespace plegscope
