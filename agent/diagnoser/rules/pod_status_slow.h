#pragma once
// pod_status_slow's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.

#include "diagnoser/finding_values.h"

namespace plegscope {

// Per-pod status calls slow.
template <>
struct CauseDetails<CauseId::kPodStatusSlow> {
  double median_seconds = 0;     // the median beside the p99 in the finding's `seconds`
  double threshold_seconds = 0;  // what `seconds` was judged against
  bool call_in_flight = false;   // a call still in flight is among the slow ones
};
using PodStatusSlowDetails = CauseDetails<CauseId::kPodStatusSlow>;

}  // namespace plegscope
