#pragma once
// Every cause's own details, one alternative per row of cause_list.h: the
// variant's list is generated from the rows, each alternative the cause's
// CauseDetails<id> from its rules/<name>.h. A row whose header is missing
// here does not compile (CauseDetails is declared, never defined, for a
// cause without one).
#include <variant>

#include "diagnoser/rules/cni_slow.h"
#include "diagnoser/rules/container_frozen.h"
#include "diagnoser/rules/container_lock_stall.h"
#include "diagnoser/rules/defunct_processes.h"
#include "diagnoser/rules/event_storm.h"
#include "diagnoser/rules/kubelet_internal.h"
#include "diagnoser/rules/message_too_large.h"
#include "diagnoser/rules/node_pressure.h"
#include "diagnoser/rules/nri_stall.h"
#include "diagnoser/rules/pid_exhaustion.h"
#include "diagnoser/rules/pod_status_slow.h"
#include "diagnoser/rules/reinspect_backlog.h"
#include "diagnoser/rules/runtime_disk_slow.h"
#include "diagnoser/rules/runtime_hung.h"
#include "diagnoser/rules/runtime_losing_support.h"
#include "diagnoser/rules/runtime_network_not_ready.h"
#include "diagnoser/rules/runtime_not_ready.h"
#include "diagnoser/rules/runtime_slow.h"
#include "diagnoser/rules/runtime_status_hung.h"
#include "diagnoser/rules/runtime_unavailable.h"
#include "diagnoser/rules/shim_hung.h"
#include "diagnoser/rules/shim_lost.h"
#include "diagnoser/rules/systemd_bus_stalled.h"
#include "diagnoser/rules/too_many_containers.h"

namespace plegscope {

// std::monostate: a finding whose cause recorded no details (a cause read
// back from JSON, which carries only the core).
#define PLEGSCOPE_CAUSE_DETAILS(id, name) , CauseDetails<CauseId::id>
using AnyCauseDetails = std::variant<std::monostate PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_DETAILS)>;
#undef PLEGSCOPE_CAUSE_DETAILS

}  // namespace plegscope
