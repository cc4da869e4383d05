#pragma once
// container_frozen's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>
#include <vector>

#include "diagnoser/finding_values.h"

namespace plegscope {

// A container's, pod's or kubepods' cgroup v2 cgroup frozen.
template <>
struct CauseDetails<CauseId::kContainerFrozen> {
  // A frozen (or freezing) cgroup, with the pod it holds.
  struct FrozenCgroup {
    std::string path;        // relative to the v2 root
    std::string role;        // "container", "pod", "kubepods"
    double seconds = 0;      // seen stopped this long (a lower bound)
    bool incomplete = false; // cgroup.freeze 1, frozen 0: the freeze never completed
    bool inherited = false;  // its own cgroup.freeze is 0: a parent the scan does not read froze it
    PodRef pod;              // empty for kubepods
  };
  std::vector<FrozenCgroup> frozen;
  double threshold_seconds = 0;    // what the stop's `seconds` was judged against
  double status_call_seconds = 0;  // the oldest PLEG call for a frozen pod in flight past the threshold
  bool call_in_flight = false;     // such a call is in flight: the relist waits on the freeze
};
using ContainerFrozenDetails = CauseDetails<CauseId::kContainerFrozen>;

}  // namespace plegscope
