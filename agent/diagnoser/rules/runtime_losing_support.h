#pragma once
// runtime_losing_support's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// A runtime the next kubelet release will refuse.
template <>
struct CauseDetails<CauseId::kRuntimeLosingSupport> {
  // The runtime as its Version names it, and the kubelet release that says
  // it stops falling back ("1.38.0"), from the kubelet's own series or from
  // what that kubelet's release announces.
  std::string runtime_name, runtime_version;
  std::string losing_support_from;
  std::string kubelet_version;  // "v1.37.2"; "" when the agent could not read it
  bool kubelet_says = false;    // kubelet_cri_losing_support was read
};
using RuntimeLosingSupportDetails = CauseDetails<CauseId::kRuntimeLosingSupport>;

}  // namespace plegscope
