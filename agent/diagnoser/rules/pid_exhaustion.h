#pragma once
// pid_exhaustion's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <cstdint>
#include <string>

#include "diagnoser/finding_values.h"

namespace plegscope {

// A pids limit nearly reached.
template <>
struct CauseDetails<CauseId::kPidExhaustion> {
  std::string limit_scope;   // "runtime", "kubepods", "node_pid_max", "node_threads_max"
  std::string limit_cgroup;  // the cgroup that binds, when a cgroup does
  int64_t current = 0, maximum = 0;
  double share = 0;          // current / maximum
};
using PidExhaustionDetails = CauseDetails<CauseId::kPidExhaustion>;

}  // namespace plegscope
