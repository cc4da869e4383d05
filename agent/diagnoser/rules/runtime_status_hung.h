#pragma once
// runtime_status_hung's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <optional>

#include "diagnoser/finding_values.h"

namespace plegscope {

// The runtime's CRI Status has no answer, or fails.
template <>
struct CauseDetails<CauseId::kRuntimeStatusHung> {
  double threshold_seconds = 0;  // how long without an answer the kubelet calls the runtime down
  double list_seconds = 0;       // the PLEG's list calls meanwhile
  int calls = 0;                 // Status calls failed in a row
  std::optional<double> status_down_in_seconds;  // until "container runtime is down"; 0: it is
  bool lists_answer = false;     // the PLEG's lists answer meanwhile
  bool ready_message_agrees = false;  // the kubelet's Ready message, where readable, says this very thing
  // The runtime's child that has run since before the pending call began
  // (finding.processes' first): what Status waits on; "" when none.
  std::string waits_on_daemon;  // its parent's comm
};
using RuntimeStatusHungDetails = CauseDetails<CauseId::kRuntimeStatusHung>;

}  // namespace plegscope
