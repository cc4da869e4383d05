// cni_slow: network setup or teardown is slow (its p99 from the runtime's
// metrics: containerd's network plugin histogram, CRI-O's network_setup_pod /
// network_stop_pod summaries; or the kubelet's run/stop_podsandbox p99) or a
// sandbox call has been in flight longer than the CNI threshold, beside slow
// sandbox calls: the agent's PodSandboxStatus or ListPodSandbox, or the
// runtime's or the kubelet's own sandbox calls. CNI holds the sandbox's lock
// meanwhile (kubernetes#107749). Slow CNI beside fast sandbox calls harms no
// PLEG and is not named; neither are slow sandbox calls beside fast CNI.
//
// A sandbox call's latency is the network plugin's only while the runtime
// itself answered: a call held by a stopped or hung runtime ends when the
// runtime returns, as slow as the hang was long, and a rollout's sandboxes
// wait on each other and on a busy node. So the kubelet's figure is judged
// scrape by scrape: a step whose slow sandbox calls overlapped a runtime
// stall (the agent's calls for no pod held or failing, or the kubelet's own
// list calls held as long) is the stall's, many sandbox calls of one kind
// ending around the slow ones are a rollout's, and sandbox calls that ended
// fast since say the plugin recovered. Only the runtime's own network figures isolate the
// plugin; they are judged as read.
#include <algorithm>

#include "cri/operation_names.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/cni_slow.h"

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

struct Span {
  TimePoint from, to;
  bool overlaps(const Span& o) const { return from <= o.to && o.from <= to; }
};

WallClock::duration span_of(double seconds) {
  return std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(seconds));
}
TimePoint before(TimePoint t, double seconds) { return t - span_of(seconds); }

double p99_of(const KubeletEvidence::CallStep& step, const std::string& op) {
  auto it = step.calls.find(op);
  return it == step.calls.end() ? 0 : it->second.p99_seconds;
}

constexpr const char* kKubeletLists[] = {"list_podsandbox", "list_containers"};

// When the runtime did not answer: the agent's calls for no pod (the
// unfiltered lists, Version; Status has its own cause) held past the hang
// threshold, in flight that long, or failing at their deadline or with
// UNAVAILABLE; and the kubelet's own list calls held as long in a step.
std::vector<Span> runtime_stalls(const Context& c) {
  std::vector<Span> out;
  const double hang = c.t.hang_seconds;
  for (const auto& [name, st] : c.s.operations) {
    if (!is_list_op(name) && name != op::kVersion) continue;
    for (const CallSample& call : st.recent)
      if (call.target.empty() && (call.seconds >= hang || call.code == GrpcCode::kDeadlineExceeded ||
                                  call.code == GrpcCode::kUnavailable))
        out.push_back({before(call.end, call.seconds), call.end});
    for (const InFlightCall& call : st.in_flight_calls)
      if (call.target.empty() && call.seconds >= hang) out.push_back({before(c.s.now, call.seconds), c.s.now});
    // Counted in flight with no call listed: the oldest one's age is all there is.
    if (st.in_flight_calls.empty() && st.in_flight > 0 && st.oldest_in_flight_seconds >= hang)
      out.push_back({before(c.s.now, st.oldest_in_flight_seconds), c.s.now});
  }
  for (const auto& step : c.s.kubelet.call_steps)
    for (const char* op : kKubeletLists)
      if (const double p99 = p99_of(step, op); p99 >= hang) out.push_back({before(step.from, p99), step.to});
  return out;
}

bool stalled_during(const std::vector<Span>& stalls, const Span& call) {
  return std::any_of(stalls.begin(), stalls.end(), [&](const Span& s) { return s.overlaps(call); });
}

// The kubelet's slow sandbox calls of one kind that are the network
// plugin's to answer for, over its minute.
struct SandboxFigure {
  double seconds = 0;        // the worst p99 of the steps that count
  double at_once = 0;        // sandbox calls of the kind that ended around them (the most around one)
  std::string list_op;       // the kubelet's slowest list call in those steps ...
  double list_seconds = 0;   // ... its p99: the runtime answered meanwhile
  bool steps_known = false;  // false: the minute's p99 alone (no step read yet)
};

constexpr auto kKubeletMinute = std::chrono::seconds(60);

// Sandbox calls of `op` that ended while one of `slow` could have been in
// flight, or as long after: a rollout's sandboxes end around each other.
double calls_around(const KubeletEvidence& k, const KubeletEvidence::CallStep& slow, const std::string& op) {
  const double p99 = p99_of(slow, op);
  const Span around{before(slow.from, p99), slow.to + span_of(p99)};
  double n = 0;
  for (const auto& step : k.call_steps)
    if (auto calls = step.calls.find(op); calls != step.calls.end() && around.from <= step.to && step.to <= around.to)
      n += calls->second.count;
  return n;
}

void note_lists(const KubeletEvidence::CallStep& step, SandboxFigure& f) {
  for (const char* list : kKubeletLists) {
    if (!step.calls.count(list)) continue;
    const double seconds = p99_of(step, list);
    if (f.list_op.empty() || seconds > f.list_seconds) {
      f.list_op = list;
      f.list_seconds = seconds;
    }
  }
}

SandboxFigure sandbox_figure(const Context& c, const std::vector<Span>& stalls, const std::string& op) {
  const KubeletEvidence& k = c.s.kubelet;
  SandboxFigure f;
  if (k.call_steps.empty()) {
    auto it = k.sandbox_p99_seconds.find(op);
    if (it != k.sandbox_p99_seconds.end()) f.seconds = it->second;
    return f;
  }
  f.steps_known = true;
  for (const auto& step : k.call_steps) {
    auto calls = step.calls.find(op);
    if (calls == step.calls.end() || calls->second.count <= 0 || step.to < c.s.now - kKubeletMinute) continue;
    const double p99 = calls->second.p99_seconds;
    if (p99 < c.t.cni_slow_seconds) {
      f = SandboxFigure{};  // sandbox calls of the kind ended fast since: what was slow is over
      f.steps_known = true;
      continue;
    }
    if (stalled_during(stalls, {before(step.from, p99), step.to})) continue;  // held by the stall
    f.seconds = std::max(f.seconds, p99);
    f.at_once = std::max(f.at_once, calls_around(k, step, op));
    note_lists(step, f);
  }
  return f;
}

struct KubeletSandbox {
  std::string op;
  SandboxFigure figure;
  bool slow = false;     // slow sandbox calls the runtime's stall did not hold
  bool rollout = false;  // ... as many as a rollout's: no evidence of the plugin on their own
};

// The worst kind of the kubelet's sandbox calls still slow once the stalls'
// are set aside, a kind that is no rollout's first.
KubeletSandbox kubelet_sandbox(const Context& c, const std::vector<Span>& stalls) {
  KubeletSandbox out;
  if (!c.s.kubelet.reachable) return out;
  for (const char* op : {"run_podsandbox", "stop_podsandbox"}) {
    SandboxFigure f = sandbox_figure(c, stalls, op);
    if (f.seconds < c.t.cni_slow_seconds) continue;
    const bool rollout = f.at_once >= c.t.cni_mass_sandboxes;
    const bool better =
        !out.slow || (out.rollout && !rollout) || (out.rollout == rollout && f.seconds > out.figure.seconds);
    if (better) out = {op, f, true, rollout};
  }
  return out;
}

void add_kubelet_evidence(const Context& c, const KubeletSandbox& k, Finding& f) {
  const double limit = c.t.cni_slow_seconds;
  f.evidence.push_back({"kubelet_runtime_operations_p99_seconds{" + k.op + "}", k.figure.seconds, limit});
  if (!k.figure.steps_known) return;
  // What clears the runtime and a rollout: the kubelet's lists answered
  // beside, and few sandbox calls of the kind ended around the slow ones.
  if (!k.figure.list_op.empty())
    f.evidence.push_back({"kubelet_runtime_operations_p99_seconds{" + k.figure.list_op + "}", k.figure.list_seconds,
                          c.t.hang_seconds});
  f.evidence.push_back({"kubelet_sandbox_calls_at_once{" + k.op + "}", k.figure.at_once, c.t.cni_mass_sandboxes});
}

}  // namespace

std::optional<Finding> judge_cni_slow(const Context& c) {
  const double limit = c.t.cni_slow_seconds;
  const RuntimeMetricsEvidence& m = c.s.runtime_metrics;
  const std::vector<Span> stalls = runtime_stalls(c);
  const Worst network = m.reachable ? worst_of(m.network_p99_seconds) : Worst{};
  Worst in_flight;
  if (m.reachable)
    for (const auto& call : m.in_flight)
      if ((call.method == "RunPodSandbox" || call.method == "StopPodSandbox") && call.seconds > in_flight.seconds &&
          !stalled_during(stalls, {before(c.s.now, call.seconds), c.s.now}))  // held by the stall, not CNI
        in_flight = {call.method, call.seconds};

  const bool network_slow = network.seconds >= limit;
  // The kubelet's sandbox latency also holds the runtime's own time: where
  // the runtime's network figures are read and fast, it is not CNI.
  const bool network_fast = m.reachable && !m.network_p99_seconds.empty() && !network_slow;
  const KubeletSandbox kubelet_sandbox_calls = kubelet_sandbox(c, stalls);
  // Slow sandbox calls beside slow network figures, rollout or not; on
  // their own only when few.
  const bool kubelet_beside = kubelet_sandbox_calls.slow && !network_fast;
  const bool kubelet_slow = kubelet_beside && !kubelet_sandbox_calls.rollout;
  const bool sandbox_in_flight = in_flight.seconds >= limit;
  if (!network_slow && !kubelet_slow && !sandbox_in_flight) return std::nullopt;

  // Beside it: the sandbox calls slow too (the agent's PodSandboxStatus or
  // ListPodSandbox, or a sandbox call in the runtime or the kubelet).
  const double status_seconds = agent_call_seconds(c, op::kPodSandboxStatus);
  const double list_seconds = agent_call_seconds(c, op::kListPodSandbox);
  const bool status_slow = status_seconds >= c.t.slow_status_seconds;
  const bool list_slow = list_seconds >= c.t.slow_list_seconds;
  if (!status_slow && !list_slow && !kubelet_beside && in_flight.seconds < c.t.hang_seconds) return std::nullopt;

  // The runtime's own network figure is direct evidence; the kubelet's
  // sandbox latency also holds image and runtime time.
  const double confidence = network_slow ? 0.75 : sandbox_in_flight ? 0.6 : 0.5;
  Finding f = make_finding(CauseId::kCniSlow, Severity::kWarning, confidence);
  CniSlowDetails& d = f.details<CniSlowDetails>();
  d.threshold_seconds = limit;
  if (status_slow) d.status_call_seconds = status_seconds;
  if (list_slow) d.list_seconds = list_seconds;
  if (network_slow) {
    f.op = network.name;
    f.seconds = network.seconds;
    f.evidence.push_back({"runtime_network_p99_seconds{" + network.name + "}", network.seconds, limit});
  } else if (kubelet_slow) {
    f.op = kubelet_sandbox_calls.op;
    f.seconds = kubelet_sandbox_calls.figure.seconds;
  }
  if (kubelet_beside) add_kubelet_evidence(c, kubelet_sandbox_calls, f);
  if (in_flight.seconds > 0) {
    d.method = in_flight.name;
    d.call_in_flight = sandbox_in_flight;
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
