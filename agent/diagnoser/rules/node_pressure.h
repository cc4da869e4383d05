#pragma once
// node_pressure's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <vector>

#include "diagnoser/finding_values.h"

namespace plegscope {

// One pressure reading past its threshold.
struct PressureReading {
  enum class Kind { kCpu, kIo, kMemory, kLoadPerCpu, kPidUsage, kThreadUsage } kind;
  double value;  // percent for PSI, load per CPU, a fraction for PID usage
};

// The node short of CPU, IO, memory, PIDs or threads.
template <>
struct CauseDetails<CauseId::kNodePressure> {
  std::vector<PressureReading> pressure;  // every reading past its threshold
};
using NodePressureDetails = CauseDetails<CauseId::kNodePressure>;

}  // namespace plegscope
