#pragma once
// too_many_containers's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.

#include "diagnoser/finding_values.h"

namespace plegscope {

// So many sandboxes and containers that the lists are slow.
template <>
struct CauseDetails<CauseId::kTooManyContainers> {
  double list_seconds = 0;     // time per relist in the two list calls
  int objects = 0;             // sandboxes and containers in the newest answer
  int exited = 0;              // of them, exited containers
  bool mostly_exited = false;  // exited containers are much of the list
};
using TooManyContainersDetails = CauseDetails<CauseId::kTooManyContainers>;

}  // namespace plegscope
