#pragma once
// What the runtime answered to CRI RuntimeConfig. The kubelet asks it once at
// start for the cgroup driver; a runtime that answers UNIMPLEMENTED makes it
// fall back to its own configuration, log "CRI implementation should be
// updated to support RuntimeConfig" and set kubelet_cri_losing_support to the
// release it says will stop falling back. A plain value.
#include <string>

namespace plegscope {

enum class RuntimeConfigAnswer {
  kNotAsked,       // no good relist yet, or the call had no answer (a deadline, the socket away)
  kAnswered,
  kUnimplemented,  // the runtime does not serve the method
};

struct RuntimeConfigEvidence {
  RuntimeConfigAnswer answer = RuntimeConfigAnswer::kNotAsked;
  std::string cgroup_driver;  // "systemd", "cgroupfs" when answered
};

}  // namespace plegscope
