#pragma once
// event_storm's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.

#include "diagnoser/finding_values.h"

namespace plegscope {

// So many pods change per relist that inspection is slow.
template <>
struct CauseDetails<CauseId::kEventStorm> {
  double share = 0;            // 0..1 of the relist's time in per-pod inspection
  double pods_per_relist = 0;  // pods with events per relist
  double events_per_relist = 0;
  int discarded = 0;           // events discarded
};
using EventStormDetails = CauseDetails<CauseId::kEventStorm>;

}  // namespace plegscope
