#pragma once
// nri_stall's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// An NRI plugin answers the runtime's events late or not at all.
template <>
struct CauseDetails<CauseId::kNriStall> {
  std::string endpoint;          // the runtime's metrics page
  std::string plugin;            // the plugin as NRI registered it, "10-stall"
  std::string method;            // the NRI event it held, "RunPodSandbox"
  int timeouts = 0;              // its calls NRI gave up on at its request timeout
  int calls = 0;                 // its calls slower than the threshold
  double threshold_seconds = 0;  // the slow-call threshold
  double window_seconds = 0;     // the time the runtime's figures cover
};
using NriStallDetails = CauseDetails<CauseId::kNriStall>;

}  // namespace plegscope
