#pragma once
// cgroup v2 evidence the slow-runtime, disk and PID-limit causes add to
// their findings: the runtime's and the kubelet's units' (and watched pods')
// stall over the last scan interval, naming the stalled resource, and the
// forks a pids limit refused. Nothing is added on a v1 host or for a file
// the kernel lacks.
#include <string>
#include <vector>

#include "diagnoser/context.h"
#include "diagnoser/finding.h"

namespace plegscope {

// A unit's share of the interval with some task stalled on a resource that
// counts as material evidence.
inline constexpr double kMaterialStallShare = 0.1;

// cgroup_stall_share{unit=<role>[,pod=<uid>],resource=<r>} for each of
// `resources` ("cpu", "io", "memory") at or above kMaterialStallShare.
void add_cgroup_stalls(const Context& c, Finding& f, const std::vector<std::string>& resources);

// cgroup_pids_forks_refused{unit=<role>} for each unit whose pids.events
// counts forks refused (its limit was reached at least once).
void add_cgroup_forks_refused(const Context& c, Finding& f);

}  // namespace plegscope
