// cni_slow: network setup or teardown is slow (its p99 from the runtime's
// metrics: containerd's network plugin histogram, CRI-O's network_setup_pod /
// network_stop_pod summaries; or the kubelet's run/stop_podsandbox p99) or a
// sandbox call has been in flight longer than the CNI threshold, beside slow
// sandbox calls: the agent's PodSandboxStatus or ListPodSandbox, or the
// runtime's or the kubelet's own sandbox calls. CNI holds the sandbox's lock
// meanwhile (kubernetes#107749). Slow CNI beside fast sandbox calls harms no
// PLEG and is not named; neither are slow sandbox calls beside fast CNI.
#include <algorithm>

#include "cri/operation_names.h"
#include "diagnoser/rule.h"

namespace plegscope {
namespace {

struct Worst {
  std::string name;
  double seconds = 0;
};

Worst worst_of(const std::map<std::string, double>& figures) {
  Worst w;
  for (const auto& [name, seconds] : figures)
    if (seconds > w.seconds) w = {name, seconds};
  return w;
}

// The agent's own calls of `op`: their p99, or the age of one in flight if longer.
double agent_call_seconds(const Context& c, const char* op) {
  auto it = c.s.operations.find(op);
  if (it == c.s.operations.end()) return 0;
  return std::max(it->second.p99_seconds, it->second.in_flight ? it->second.oldest_in_flight_seconds : 0);
}

}  // namespace

std::optional<Finding> judge_cni_slow(const Context& c) {
  const double limit = c.t.cni_slow_seconds;
  const RuntimeMetricsEvidence& m = c.s.runtime_metrics;
  const KubeletEvidence& k = c.s.kubelet;
  const Worst network = m.reachable ? worst_of(m.network_p99_seconds) : Worst{};
  const Worst kubelet_sandbox = k.reachable ? worst_of(k.sandbox_p99_seconds) : Worst{};
  Worst in_flight;
  if (m.reachable)
    for (const auto& call : m.in_flight)
      if ((call.method == "RunPodSandbox" || call.method == "StopPodSandbox") && call.seconds > in_flight.seconds)
        in_flight = {call.method, call.seconds};

  const bool network_slow = network.seconds >= limit;
  // The kubelet's sandbox latency also holds the runtime's own time: where
  // the runtime's network figures are read and fast, it is not CNI.
  const bool network_fast = m.reachable && !m.network_p99_seconds.empty() && !network_slow;
  const bool kubelet_slow = kubelet_sandbox.seconds >= limit && !network_fast;
  const bool sandbox_in_flight = in_flight.seconds >= limit;
  if (!network_slow && !kubelet_slow && !sandbox_in_flight) return std::nullopt;

  // Beside it: the sandbox calls slow too (the agent's PodSandboxStatus or
  // ListPodSandbox, or a sandbox call in the runtime or the kubelet).
  const double status_seconds = agent_call_seconds(c, op::kPodSandboxStatus);
  const double list_seconds = agent_call_seconds(c, op::kListPodSandbox);
  const bool status_slow = status_seconds >= c.t.slow_status_seconds;
  const bool list_slow = list_seconds >= c.t.slow_list_seconds;
  if (!status_slow && !list_slow && !kubelet_slow && in_flight.seconds < c.t.hang_seconds) return std::nullopt;

  // The runtime's own network figure is direct evidence; the kubelet's
  // sandbox latency also holds image and runtime time.
  const double confidence = network_slow ? 0.75 : sandbox_in_flight ? 0.6 : 0.5;
  Finding f = make_finding(CauseId::kCniSlow, Severity::kWarning, confidence);
  f.threshold_seconds = limit;
  if (status_slow) f.status_call_seconds = status_seconds;
  if (list_slow) f.list_seconds = list_seconds;
  if (network_slow) {
    f.op = network.name;
    f.seconds = network.seconds;
    f.evidence.push_back({"runtime_network_p99_seconds{" + network.name + "}", network.seconds, limit});
  } else if (kubelet_slow) {
    f.op = kubelet_sandbox.name;
    f.seconds = kubelet_sandbox.seconds;
  }
  if (kubelet_slow)
    f.evidence.push_back(
        {"kubelet_runtime_operations_p99_seconds{" + kubelet_sandbox.name + "}", kubelet_sandbox.seconds, limit});
  if (in_flight.seconds > 0) {
    f.method = in_flight.name;
    f.call_in_flight = sandbox_in_flight;
    if (!network_slow && !kubelet_slow) f.seconds = in_flight.seconds;
    f.evidence.push_back({"runtime_in_flight_seconds{" + in_flight.name + "}", in_flight.seconds, limit});
  }
  if (status_slow)
    f.evidence.push_back({"p99_seconds{" + std::string(op::kPodSandboxStatus) + "}", status_seconds,
                          c.t.slow_status_seconds});
  if (list_slow)
    f.evidence.push_back({"p99_seconds{" + std::string(op::kListPodSandbox) + "}", list_seconds,
                          c.t.slow_list_seconds});
  return f;
}

}  // namespace plegscope
