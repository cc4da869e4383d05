#pragma once
// runtime_hung's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <optional>

#include "diagnoser/finding_values.h"

namespace plegscope {

// A CRI call in flight past the hang threshold, or list deadlines.
template <>
struct CauseDetails<CauseId::kRuntimeHung> {
  double threshold_seconds = 0;  // the hang threshold the call was judged against
  double window_seconds = 0;     // the time `relists` covers
  double list_seconds = 0;       // time per relist in the two list calls
  int relists = 0;               // relists whose lists ended at their deadline
  int pod_count = 0;             // kStuckPod: the pods whose calls hang
  std::optional<double> kubelet_flat_seconds;  // since the kubelet's relist count last moved
  // The runtime's own metrics page fails meanwhile: a runtime blocked this
  // way does not serve it either.
  bool runtime_metrics_failed = false;
  // The host scan saw no pod's helper in D, so the runtime itself holds the call.
  bool no_helper_in_d = false;
  // The hung call is a list of the on-demand relist of pods[0] (the 1.36+
  // kubelet's model), which holds the global relist behind it.
  bool pod_relist = false;
};
using RuntimeHungDetails = CauseDetails<CauseId::kRuntimeHung>;

}  // namespace plegscope
