#pragma once
// cni_slow's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// The network plugin holds the sandbox calls.
template <>
struct CauseDetails<CauseId::kCniSlow> {
  std::string method;               // the runtime's gRPC method that waits on the plugin
  double threshold_seconds = 0;     // what `seconds` was judged against
  double list_seconds = 0;          // time per relist in the two list calls
  double status_call_seconds = 0;   // a typical sandbox status call
  bool call_in_flight = false;      // a call still in flight is among the slow ones
};
using CniSlowDetails = CauseDetails<CauseId::kCniSlow>;

}  // namespace plegscope
