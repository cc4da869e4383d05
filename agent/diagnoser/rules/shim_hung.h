#pragma once
// shim_hung's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.

#include "diagnoser/finding_values.h"

namespace plegscope {

// A pod's runtime helper stuck in the kernel.
template <>
struct CauseDetails<CauseId::kShimHung> {
  double threshold_seconds = 0;  // the hang threshold the helper's time in D was judged against
  int relists = 0;               // kBehindHungLists: list calls that ended at their deadline
  bool call_in_flight = false;   // the pod's call is still in flight
  // The runtime's own metrics page fails meanwhile: a runtime blocked this
  // way does not serve it either.
  bool runtime_metrics_failed = false;
};
using ShimHungDetails = CauseDetails<CauseId::kShimHung>;

}  // namespace plegscope
