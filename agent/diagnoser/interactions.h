#pragma once
// What the rules cannot see one at a time: how causes relate, and which
// cause explains a long relist when no single rule fired. Explicit steps,
// run in this order after the rule table, on typed findings: a relation is
// recorded in Finding::relations and an attributed cause gets its own form
// (Form::kLateIn…, kNoRelistYet); agent/report words both.
#include <optional>
#include <vector>

#include "diagnoser/context.h"
#include "diagnoser/finding.h"

namespace plegscope {

// Node pressure and slow calls together: both stay named; when the pressure
// evidence is strong it ranks first as the likely root, and the slow-call
// causes say that it may explain them.
void relate_pressure_to_slow_calls(std::vector<Finding>& findings);

// Node pressure beside a cause that names what holds a call past the hang
// threshold (a hung runtime, a frozen or stuck shim, a container's lock, a
// frozen container, the system bus): that cause ranks first, and the
// pressure says it may be slowing it, unless a runtime daemon thread waits
// in the kernel (D) under strong pressure, which is pressure holding the
// runtime.
void relate_pressure_to_hung_calls(const Context& c, std::vector<Finding>& findings);

// A reinspection backlog while the runtime's list calls fail (runtime_hung
// from deadlines, runtime_unavailable) and no status call failed: the
// inspections fail in their filtered list calls, the same failures, so the
// backlog is a consequence. It stays named, ranked below the runtime cause,
// and says so.
void relate_backlog_to_failing_lists(const Context& c, std::vector<Finding>& findings);

// A mutating call stuck inside the runtime (container_lock_stall)
// explains the agent's hung or slow calls: it ranks above runtime_hung,
// runtime_slow and pod_status_slow, which stay named and say so.
void relate_lock_stall_to_hung_calls(std::vector<Finding>& findings);

// Slow CNI named beside slow PodSandboxStatus calls holds the
// sandbox's lock those calls wait for: pod_status_slow about
// PodSandboxStatus ranks below cni_slow, stays named, and says so.
void relate_cni_to_sandbox_status(std::vector<Finding>& findings);

// Relists that take several periods, an unhealthy PLEG, or a forecast always
// come with a cause. When no rule named one, the cause is attributed from
// where the relist time goes (list calls, or per-pod inspection).
// A pod's stuck helper (shim_hung) explains the hung call of
// runtime_hung and ranks above it; the runtime's slow disk is named only
// beside the slow or hung calls it is behind.
void relate_host_to_calls(std::vector<Finding>& findings);

void attribute_unexplained(const Context& c, bool needs_cause, std::vector<Finding>& findings);

// Causes at warning or above first, then highest confidence first
// (cause-id order breaks ties), dropping causes below the reporting floor.
void rank(std::vector<Finding>& findings, double min_confidence);

}  // namespace plegscope
