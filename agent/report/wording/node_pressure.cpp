// The words of node_pressure: CPU, IO or memory pressure, or PID exhaustion.
#include "diagnoser/rules/node_pressure.h"
#include "report/wording.h"

namespace plegscope {
namespace {

std::string describe(const PressureReading& p) {
  switch (p.kind) {
    case PressureReading::Kind::kCpu: return "CPU pressure " + text::fmt("%.0f", p.value) + "%";
    case PressureReading::Kind::kIo: return "IO pressure " + text::fmt("%.0f", p.value) + "%";
    case PressureReading::Kind::kMemory: return "memory pressure " + text::fmt("%.0f", p.value) + "%";
    case PressureReading::Kind::kLoadPerCpu: return "a load of " + text::fmt("%.1f", p.value) + " per CPU";
    default: return text::fmt("%.0f", p.value * 100) + "% of the PID space in use";
  }
}

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const NodePressureDetails& d = f.details<NodePressureDetails>();
  CauseWords w;
  std::string what;
  for (size_t i = 0; i < d.pressure.size(); ++i) {
    if (i) what += i + 1 == d.pressure.size() ? " and " : ", ";
    what += describe(d.pressure[i]);
  }
  std::string meanwhile;
  switch (f.form) {
    case Form::kWhileCallHung:
      meanwhile = " while " + cri_method(f.op) + " has been in flight for " + text::elapsed(f.seconds);
      break;
    case Form::kWhileCallsSlow:
      meanwhile = " while " + cri_method(f.op) + " takes " + text::elapsed(f.seconds) + " (p99)";
      break;
    case Form::kWhileRelistsSlow: meanwhile = " while relists take " + text::elapsed(f.seconds); break;
    default: meanwhile = " (runtime calls are not slow yet)"; break;
  }
  w.reason = "the node is under " + what + meanwhile;
  w.action = "find what saturates the node";
  w.summary = "Node pressure: " + w.reason + ".";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## node_pressure
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording node_pressure_wording = {
  {"`cat /proc/pressure/cpu /proc/pressure/io /proc/pressure/memory`, `timeout 10 iostat -x 1 5` (await, "
   "%util), `timeout 10 pidstat -u -d 1 5` for who uses the CPU and the disk; `threads | wc -l` (the runbook's "
   "`/proc` reader) against `cat /proc/sys/kernel/pid_max`; `kubectl top pods -A --sort-by=cpu` for the noisy "
   "workload.",
   "Relieve the pressure: throttle or move the workload that saturates the disk or CPU, set pod requests and "
   "limits (and `podPidsLimit` against PID leaks), reserve CPU and memory for system daemons (`systemReserved`, "
   "`kubeReserved`). Drain the node by hand if it stays saturated.",
   "Reboot to clear the pressure: it returns with the workload. Find the workload first."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
