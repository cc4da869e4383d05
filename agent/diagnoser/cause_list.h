#pragma once
// THE cause list: every cause id, once. Each row is X(enumerator, name):
// the name is the docs/report.md cause id (dashboards and alerts use it), the
// rule is judge_<name> in rules/<name>.cpp, its typed details
// CauseDetails<enumerator> in rules/<name>.h, and the words are
// <name>_wording in agent/report/wording/<name>.cpp. The enum, the names,
// kAllCauses, the rule table, the variant of details and the wording table
// are all generated from this list (causes.h, rule_table.cpp,
// cause_details.h, report/wording.cpp), and the Python tests read their
// cause ids from it (tests/lib/harness.py cause_ids()).
// Row order is the tie-break when two causes are equally confident.
//
// Adding a cause: one row here, rules/<name>.h (and its include line in
// cause_details.h), rules/<name>.cpp, report/wording/<name>.cpp, and its
// section under # Causes in docs/runbook.md.
#define PLEGSCOPE_CAUSES(X)                     \
  X(kRuntimeUnavailable, runtime_unavailable)   \
  X(kRuntimeHung, runtime_hung)                 \
  X(kRuntimeSlow, runtime_slow)                 \
  X(kMessageTooLarge, message_too_large)        \
  X(kTooManyContainers, too_many_containers)    \
  X(kEventStorm, event_storm)                   \
  X(kPodStatusSlow, pod_status_slow)            \
  X(kReinspectBacklog, reinspect_backlog)       \
  X(kNodePressure, node_pressure)               \
  /* seen beside the kubelet and in the runtime's own metrics */ \
  X(kKubeletInternal, kubelet_internal)         \
  X(kContainerLockStall, container_lock_stall)  \
  X(kCniSlow, cni_slow)                         \
  X(kNriStall, nri_stall)                       \
  /* the runtime's CRI Status: the kubelet's other path to NotReady */ \
  X(kRuntimeStatusHung, runtime_status_hung)    \
  X(kRuntimeNotReady, runtime_not_ready)        \
  X(kRuntimeNetworkNotReady, runtime_network_not_ready) \
  /* host evidence below the CRI */  \
  X(kShimHung, shim_hung)                       \
  X(kShimLost, shim_lost)                       \
  X(kContainerFrozen, container_frozen)         \
  X(kSystemdBusStalled, systemd_bus_stalled)    \
  X(kDefunctProcesses, defunct_processes)       \
  X(kPidExhaustion, pid_exhaustion)             \
  X(kRuntimeDiskSlow, runtime_disk_slow)        \
  /* not a PLEG failure: what the next kubelet will refuse */ \
  X(kRuntimeLosingSupport, runtime_losing_support)
