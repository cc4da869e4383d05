#pragma once
// runtime_unavailable's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// The runtime's socket refuses, is gone, or answers on and off.
template <>
struct CauseDetails<CauseId::kRuntimeUnavailable> {
  std::string endpoint;      // the CRI endpoint, "unix:///run/containerd/containerd.sock"
  std::string blind_reason;  // kBlind: pleg_runtime_unreachable's reason
  double window_seconds = 0; // the time `relists` covers
  int relists = 0;           // relists counted (failed, in a row)
  bool failed_last = false;  // the newest relist failed too
};
using RuntimeUnavailableDetails = CauseDetails<CauseId::kRuntimeUnavailable>;

}  // namespace plegscope
