#pragma once
// reinspect_backlog's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.

#include "diagnoser/finding_values.h"

namespace plegscope {

// Pods waiting for reinspection pile up.
template <>
struct CauseDetails<CauseId::kReinspectBacklog> {
  int relists = 0;    // good relists in a row that left pods to reinspect
  int pod_count = 0;  // pods waiting for reinspection now
};
using ReinspectBacklogDetails = CauseDetails<CauseId::kReinspectBacklog>;

}  // namespace plegscope
