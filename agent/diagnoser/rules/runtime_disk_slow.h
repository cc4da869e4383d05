#pragma once
// runtime_disk_slow's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// The runtime's disk slow or saturated.
template <>
struct CauseDetails<CauseId::kRuntimeDiskSlow> {
  std::string device;
  std::string mount;
  double latency_ms = 0;
  double utilization = 0;
};
using RuntimeDiskSlowDetails = CauseDetails<CauseId::kRuntimeDiskSlow>;

}  // namespace plegscope
