#pragma once
// runtime_not_ready's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <optional>

#include "diagnoser/finding_values.h"

namespace plegscope {

// The runtime's Status says RuntimeReady is false.
template <>
struct CauseDetails<CauseId::kRuntimeNotReady> {
  ReportedCondition condition;   // RuntimeReady as the runtime gave it
  double threshold_seconds = 0;  // how long without a good Status the kubelet calls the runtime down
  std::optional<double> status_down_in_seconds;  // until "container runtime is down"; 0: it is
  int transitions = 0;           // readiness changes over the recent Status calls
  bool ready_message_agrees = false;  // the kubelet's Ready message, where readable, says this very thing
};
using RuntimeNotReadyDetails = CauseDetails<CauseId::kRuntimeNotReady>;

}  // namespace plegscope
