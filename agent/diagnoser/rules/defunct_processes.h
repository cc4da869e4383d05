#pragma once
// defunct_processes's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <cstdint>

#include "diagnoser/finding_values.h"

namespace plegscope {

// Zombies pile up under the runtime's helpers.
template <>
struct CauseDetails<CauseId::kDefunctProcesses> {
  int objects = 0;      // the zombies' growth over the scans
  int64_t zombies = 0;  // zombies under the helpers now
};
using DefunctProcessesDetails = CauseDetails<CauseId::kDefunctProcesses>;

}  // namespace plegscope
