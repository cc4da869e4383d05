#pragma once
// The report's cgroup v2 section from the host evidence: the units read,
// named by pod, and the containers whose cgroup disagrees with the runtime's
// list (the scanner reads only the kernel; the runtime's states come from
// the PLEG's records through the snapshot).
#include <string>
#include <vector>

#include "diagnoser/report.h"
#include "diagnoser/snapshot.h"
#include "host/cgroup_v2_evidence.h"

namespace plegscope {

// Pure: a Running container whose cgroup holds no process, an exited one
// (or a NotReady sandbox) whose cgroup still does. `states` is parallel to
// `containers` ("" for an id the runtime does not list: not compared, it may
// be newer than the last relist).
std::vector<HostReport::CgroupV2::Divergence> cgroup_divergences(const std::vector<host::ContainerCgroup>& containers,
                                                                 const std::vector<std::string>& states);

void fill_cgroup_v2(const Snapshot& s, HostReport& h);

}  // namespace plegscope
