// node_pressure: CPU, IO or memory pressure, or PID exhaustion. The rule
// measures the pressure and whether calls are slow with it; whether the
// pressure explains other causes is decided in interactions.cpp.
#include <algorithm>

#include "diagnoser/prose.h"
#include "diagnoser/rule.h"

namespace plegscope {
namespace {

struct Hit {
  std::string signal;
  double value, threshold;
  bool severe;
};

std::vector<Hit> pressure_hits(const NodePressure& p, const DiagnoserThresholds& t) {
  std::vector<Hit> hits;
  auto psi = [&](const char* signal, const std::optional<double>& v, double threshold) {
    if (v && *v >= threshold) hits.push_back({signal, *v, threshold, *v >= 1.5 * threshold});
  };
  auto usage = [&](const char* signal, double v) {
    if (v >= t.pid_usage) hits.push_back({signal, v, t.pid_usage, v >= 0.97 || v >= t.pid_usage + 0.05});
  };
  psi("cpu_some_avg10", p.cpu_some_avg10, t.cpu_psi);
  psi("io_some_avg10", p.io_some_avg10, t.io_psi);
  psi("memory_some_avg10", p.memory_some_avg10, t.memory_psi);
  if (p.load1 && p.cpus && *p.cpus > 0) psi("load1_per_cpu", *p.load1 / *p.cpus, t.load_per_cpu);
  if (p.pids && p.pid_max && *p.pid_max > 0) usage("pids_over_pid_max", static_cast<double>(*p.pids) / *p.pid_max);
  if (p.pids && p.threads_max && *p.threads_max > 0)
    usage("threads_over_threads_max", static_cast<double>(*p.pids) / *p.threads_max);
  return hits;
}

std::string describe(const Hit& h) {
  if (h.signal == "cpu_some_avg10") return "CPU pressure " + text::fmt("%.0f", h.value) + "%";
  if (h.signal == "io_some_avg10") return "IO pressure " + text::fmt("%.0f", h.value) + "%";
  if (h.signal == "memory_some_avg10") return "memory pressure " + text::fmt("%.0f", h.value) + "%";
  if (h.signal == "load1_per_cpu") return "a load of " + text::fmt("%.1f", h.value) + " per CPU";
  return text::fmt("%.0f", h.value * 100) + "% of the PID space in use";
}

}  // namespace

std::optional<Cause> judge_node_pressure(const Context& c) {
  if (!c.s.pressure) return std::nullopt;
  const DiagnoserThresholds& t = c.t;
  std::vector<Hit> hits = pressure_hits(*c.s.pressure, t);
  if (hits.empty()) return std::nullopt;

  // Per-call slowness coinciding with the pressure is strong evidence; slow
  // relists alone (which many fast calls also make) are weak.
  const CallLatency& worst = c.lists.p99 >= c.statuses.p99 ? c.lists : c.statuses;
  const bool calls_slow = worst.p99 >= std::min(t.slow_list_seconds, t.slow_status_seconds) || c.hung();
  const bool relists_slow = c.relist_seconds >= t.slow_list_seconds;
  bool severe = false;
  for (const auto& h : hits) severe = severe || h.severe;
  double confidence = 0.35 + (calls_slow ? 0.4 : relists_slow ? 0.25 : 0) + (severe ? 0.1 : 0);
  Cause cause = make_cause(CauseId::kNodePressure, confidence >= 0.5 ? Severity::kWarning : Severity::kInfo,
                           confidence);
  cause.strong = severe;
  std::string what;
  for (size_t i = 0; i < hits.size(); ++i) {
    if (i) what += i + 1 == hits.size() ? " and " : ", ";
    what += describe(hits[i]);
  }
  cause.reason = "the node is under " + what +
                 (c.hung() ? " while " + cri_method(c.hung_op) + " has been in flight for " +
                                 text::duration(c.hung_seconds)
                  : calls_slow ? " while " + cri_method(worst.op) + " takes " + text::duration(worst.p99) + " (p99)"
                  : relists_slow ? " while relists take " + text::duration(c.relist_seconds)
                                 : " (runtime calls are not slow yet)");
  cause.action = "find what saturates the node";
  cause.summary = "Node pressure: " + cause.reason + ".";
  for (const auto& h : hits) cause.evidence.push_back({h.signal, h.value, h.threshold});
  if (!worst.op.empty())
    cause.evidence.push_back({"p99_seconds{" + worst.op + "}", worst.p99,
                              std::min(t.slow_list_seconds, t.slow_status_seconds)});
  cause.evidence.push_back({"relist_duration_p50_seconds", c.relist_seconds, t.slow_list_seconds});
  return cause;
}

}  // namespace plegscope
