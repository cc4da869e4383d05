#pragma once
// Advice, not action: what an operator or a remediator should do about each
// cause (docs/report.md "advice"). plegscope itself never acts on it. A pod's
// stuck status call asks nothing of the node; a kubelet whose own relist
// stopped asks for the kubelet's restart; a helper stuck in D on storage asks
// for the storage to be fixed, and no restart frees a task in D, so a helper
// stuck elsewhere in the kernel asks for a reboot.
#include <string_view>
#include <vector>

#include "diagnoser/finding.h"

namespace plegscope {

// True when a kernel wait channel is in the block layer, the page cache
// waiting on IO, or a file system (local, network or FUSE).
bool storage_wait_channel(std::string_view wchan);

// One finding's advice, from its own evidence alone.
Advice advise(const Finding& finding);

// Every finding's advice; a finding that another explains (Relation
// kExplainedBy) takes the advice of the one that explains it, and a cause
// the runtime's slow disk is behind takes fix-storage.
void advise_all(std::vector<Finding>& findings);

}  // namespace plegscope
