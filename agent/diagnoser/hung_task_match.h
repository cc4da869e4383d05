#pragma once
// Which of the kernel's hung-task reports (the journal's kernel transport)
// tells of a blocked process the host scan found, and whether it tells of
// the stall the scan measures or may be older. Pure: a function of the
// snapshot.
#include <optional>

#include "diagnoser/finding.h"
#include "diagnoser/snapshot.h"

namespace plegscope {

// The report as the diagnoser keeps it, without a stall to compare with.
KernelHungTask kernel_hung_task(const host::HungTaskReport& report);

// The newest report that names one of the process's tasks in D (the
// kernel's pid is a task's id: a thread's own when it is a thread), or the
// process itself (its pid, or the tgid the task line names). Its
// predates_stall_seconds is set when it was printed before the scan first
// saw that task in D (the scan's time minus the task's seconds in D).
std::optional<KernelHungTask> hung_task_for(const Snapshot& s, int64_t pid);

}  // namespace plegscope
