#pragma once
// runtime_slow's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.

#include "diagnoser/finding_values.h"

namespace plegscope {

// The runtime's list calls slow.
template <>
struct CauseDetails<CauseId::kRuntimeSlow> {
  double threshold_seconds = 0;  // what the call's `seconds` was judged against
  int objects = 0;               // sandboxes and containers in the newest answer
  bool call_in_flight = false;   // a call still in flight is among the slow ones
};
using RuntimeSlowDetails = CauseDetails<CauseId::kRuntimeSlow>;

}  // namespace plegscope
