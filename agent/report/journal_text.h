#pragma once
// The journal's marks in words, shared by the text and HTML reports: where
// they come from (or that there is no journal), and what a runtime restart
// means beside relists that failed. Evidence only: no cause is named here.
#include <optional>
#include <string>

#include "diagnoser/report.h"

namespace plegscope {

// "kubelet.service, containerd.service ... in /var/log/journal: 3 marks", or
// "no journal at /var/log/journal or /run/log/journal: the kubelet's own
// lines are not shown".
std::string journal_source_line(const Report& report);

// Is this mark the runtime starting, stopping or failing?
bool is_runtime_restart_mark(const JournalEntry& mark, const Report& report);

// When relists failed and the runtime's unit restarted around them:
// "containerd.service restarted around the 12 failed relists (unit_stopping at
// ..., unit_started at ...): the restart explains the gap in the timeline".
std::optional<std::string> runtime_restart_note(const Report& report);

}  // namespace plegscope
