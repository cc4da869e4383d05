// container_lock_stall: inside the runtime, another client's mutating call
// (UpdateContainerResources, StopContainer, ...) has been in flight for at
// least the hang threshold with next to no call of its method completing,
// while the agent's list or status calls hang or are slow: the call holds
// the container's lock they wait for (containerd#9770, #10583).
#include <algorithm>
#include <array>
#include <string_view>

#include "diagnoser/rule.h"
#include "diagnoser/rules/container_lock_stall.h"

namespace plegscope {
namespace {

bool is_mutating(std::string_view method) {
  static constexpr std::array<std::string_view, 5> kMutating = {
      "UpdateContainerResources", "StopContainer", "RemoveContainer", "StopPodSandbox", "RunPodSandbox"};
  return std::find(kMutating.begin(), kMutating.end(), method) != kMutating.end();
}

}  // namespace

std::optional<Finding> judge_container_lock_stall(const Context& c) {
  const RuntimeMetricsEvidence& m = c.s.runtime_metrics;
  if (!m.reachable) return std::nullopt;
  // CRI-O's ListContainers takes no container lock: a stuck call there holds
  // only that container's ContainerStatus (its opLock), never the lists.
  const bool lists_lock = c.runtime.lists_wait_on_container_locks;
  const bool agent_hung = c.hung() && ((lists_lock && is_list_op(c.hung_op)) || is_status_op(c.hung_op));
  const bool lists_slow = lists_lock && (c.lists.in_flight_slow || c.lists.typical >= c.t.slow_list_seconds);
  const bool agent_slow =
      lists_slow || c.statuses.in_flight_slow || c.statuses.typical >= c.t.slow_status_seconds;
  if (!agent_hung && !agent_slow) return std::nullopt;

  const RuntimeMetricsEvidence::InFlight* stuck = nullptr;
  for (const auto& call : m.in_flight) {  // longest first
    if (!is_mutating(call.method) || call.seconds < c.t.hang_seconds) continue;
    // Calls of the method that keep completing are traffic, not one stuck call.
    if (call.completed_since > c.t.stuck_call_max_completions) continue;
    stuck = &call;
    break;
  }
  if (!stuck) return std::nullopt;

  Finding f = make_finding(CauseId::kContainerLockStall, agent_hung ? Severity::kCritical : Severity::kWarning,
                           agent_hung ? 0.9 : 0.65);
  ContainerLockStallDetails& d = f.details<ContainerLockStallDetails>();
  d.method = stuck->method;
  d.in_flight_count = stuck->count;
  f.seconds = stuck->seconds;
  d.threshold_seconds = c.t.hang_seconds;
  d.call_in_flight = agent_hung;
  f.op = agent_hung ? c.hung_op
                    : (lists_slow && c.lists.typical >= c.statuses.typical ? c.lists.op : c.statuses.op);
  d.endpoint = m.endpoint;
  f.evidence.push_back({"runtime_in_flight_seconds{" + stuck->method + "}", stuck->seconds, c.t.hang_seconds});
  f.evidence.push_back({"runtime_completed_since{" + stuck->method + "}", stuck->completed_since,
                        c.t.stuck_call_max_completions});
  if (agent_hung)
    f.evidence.push_back({"oldest_in_flight_seconds{" + c.hung_op + "}", c.hung_seconds, c.t.hang_seconds});
  return f;
}

}  // namespace plegscope
