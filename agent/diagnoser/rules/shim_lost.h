#pragma once
// shim_lost's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <cstdint>

#include "diagnoser/finding_values.h"

namespace plegscope {

// A container the runtime calls running after its helper died.
template <>
struct CauseDetails<CauseId::kShimLost> {
  int objects = 0;      // containers the runtime calls running that no helper watches
  int64_t current = 0;  // of them, those whose init process is alive
};
using ShimLostDetails = CauseDetails<CauseId::kShimLost>;

}  // namespace plegscope
