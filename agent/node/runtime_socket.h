#pragma once
// The adapter between the running collectors and the pure diagnoser.
#include "diagnoser/snapshot.h"
#include "monitor.h"
#include "node/node_pressure.h"

namespace plegscope {

// Copies the monitor's current state (and reads node pressure when a reader
// is given). Takes only short locks: safe while a CRI call hangs.
Snapshot gather_snapshot(Monitor& monitor, const NodePressureReader* pressure);

}  // namespace plegscope
