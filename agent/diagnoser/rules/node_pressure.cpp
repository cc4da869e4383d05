// node_pressure: CPU, IO or memory pressure (PID limits are pid_exhaustion's). The rule
// measures the pressure and whether calls are slow with it; whether the
// pressure explains other causes is decided in interactions.cpp.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/node_pressure.h"

namespace plegscope {
namespace {

struct Hit {
  PressureReading reading;
  const char* signal;
  double threshold;
  bool severe;
};

std::vector<Hit> pressure_hits(const NodePressure& p, const DiagnoserThresholds& t) {
  using Kind = PressureReading::Kind;
  std::vector<Hit> hits;
  auto psi = [&](Kind kind, const char* signal, const std::optional<double>& v, double threshold) {
    if (v && *v >= threshold) hits.push_back({{kind, *v}, signal, threshold, *v >= 1.5 * threshold});
  };
  psi(Kind::kCpu, "cpu_some_avg10", p.cpu_some_avg10, t.cpu_psi);
  psi(Kind::kIo, "io_some_avg10", p.io_some_avg10, t.io_psi);
  psi(Kind::kMemory, "memory_some_avg10", p.memory_some_avg10, t.memory_psi);
  if (p.load1 && p.cpus && *p.cpus > 0) psi(Kind::kLoadPerCpu, "load1_per_cpu", *p.load1 / *p.cpus, t.load_per_cpu);
  return hits;
}

bool daemon_waits_in_kernel(const Context& c) {
  return c.s.host && std::any_of(c.s.host->processes.blocked.begin(), c.s.host->processes.blocked.end(),
                                 [](const host::BlockedTask& b) { return b.role == "daemon" && b.state == 'D'; });
}

}  // namespace

std::optional<Finding> judge_node_pressure(const Context& c) {
  if (!c.s.pressure) return std::nullopt;
  const DiagnoserThresholds& t = c.t;
  std::vector<Hit> hits = pressure_hits(*c.s.pressure, t);
  if (hits.empty()) return std::nullopt;

  // Per-call slowness coinciding with the pressure is strong evidence; slow
  // relists alone (which many fast calls also make) are weak.
  const CallLatency& worst = c.lists.p99 >= c.statuses.p99 ? c.lists : c.statuses;
  // Pressure slows calls across the board; it does not hold one call while
  // the others are fast, nor hold a call past the hang threshold unless the
  // runtime's own threads wait in the kernel (interactions.cpp). So a call
  // that returned after more than the hang threshold was held, not slowed
  // (in flight it was runtime_hung's or shim_hung's), and a lone call in
  // flight past the slow threshold among fast ones is a hang forming, which
  // the hang threshold judges. Then the newest calls say whether calls are
  // slow (chaos campaign, on a busy node: a frozen shim or a stopped runtime
  // named node_pressure for the first 8 s, and a thawed shim's 55 s call
  // kept it at warning for 30 s after).
  const bool held = !daemon_waits_in_kernel(c) &&
                    (worst.p99 >= t.hang_seconds || (worst.in_flight_slow && worst.slow <= 1));
  const double slow_seconds = held ? worst.typical : worst.p99;
  const bool calls_slow = slow_seconds >= std::min(t.slow_list_seconds, t.slow_status_seconds) || c.hung();
  // The relist running now is as long as the call it waits on: when that
  // call is held, so is the relist, and only the completed relists say
  // whether pressure slows them (chaos campaign, on a saturated node: the
  // first 10 s of a stopped runtime or a frozen shim read "relists take
  // 9.4s" as pressure, at warning, the only cause named).
  const double relist_seconds = held ? c.completed_relist_seconds : c.relist_seconds;
  const bool relists_slow = relist_seconds >= t.slow_list_seconds;
  bool severe = false;
  for (const auto& h : hits) severe = severe || h.severe;
  double confidence = 0.35 + (calls_slow ? 0.4 : relists_slow ? 0.25 : 0) + (severe ? 0.1 : 0);
  const Form form = c.hung()       ? Form::kWhileCallHung
                    : calls_slow   ? Form::kWhileCallsSlow
                    : relists_slow ? Form::kWhileRelistsSlow
                                   : Form::kCallsNotSlowYet;
  Finding f = make_finding(CauseId::kNodePressure, confidence >= 0.5 ? Severity::kWarning : Severity::kInfo,
                           confidence, form);
  NodePressureDetails& d = f.details<NodePressureDetails>();
  f.strong = severe;
  for (const auto& h : hits) d.pressure.push_back(h.reading);
  if (c.hung()) {
    f.op = c.hung_op;
    f.seconds = c.hung_seconds;
  } else if (calls_slow) {
    f.op = worst.op;
    f.seconds = slow_seconds;
  } else {
    f.seconds = relist_seconds;
  }
  for (const auto& h : hits) f.evidence.push_back({h.signal, h.reading.value, h.threshold});
  if (!worst.op.empty())
    f.evidence.push_back({"p99_seconds{" + worst.op + "}", worst.p99,
                          std::min(t.slow_list_seconds, t.slow_status_seconds)});
  f.evidence.push_back({"relist_duration_p50_seconds", relist_seconds, t.slow_list_seconds});
  return f;
}

}  // namespace plegscope
