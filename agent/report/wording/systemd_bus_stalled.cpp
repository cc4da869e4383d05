// The words of systemd_bus_stalled: which bus daemon answers nothing, in
// which state and for how long, which runtime helper waits on it for whose
// pod, and how to let the bus run again. The runtime is fine: no restart.
#include "diagnoser/rules/systemd_bus_stalled.h"
#include "report/wording.h"

namespace plegscope {
namespace {

std::string state_words(char state) {
  switch (state) {
    case 'T': return "stopped by a signal (state T)";
    case 't': return "stopped by a tracer (state t)";
    case 'D': return "in uninterruptible sleep (state D)";
  }
  return std::string("in state ") + state;
}

std::string bus_words(const SystemdBusStalledDetails::BusDaemon& b) {
  return b.comm + " (pid " + std::to_string(b.pid) + "), the system bus,";
}

std::string waiting_words(const Finding& f) {
  const Finding::HostProcess& w = f.processes.front();
  std::string out = w.comm + " (pid " + std::to_string(w.pid) + ") has waited " + text::elapsed(w.seconds) +
                    " for systemd's answer";
  // An unnamed pod reads "the pod with sandbox …": no "pod" before it.
  if (!f.pods.empty()) out += std::string(", starting ") + (f.pods.front().name.empty() ? "" : "pod ") + pods_words(f.pods);
  if (f.processes.size() > 1)
    out += ", and " + text::count(static_cast<long>(f.processes.size() - 1), "other runtime helper",
                                  "other runtime helpers") + " with it";
  return out;
}

std::string fix_words(const SystemdBusStalledDetails::BusDaemon& b) {
  const std::string pid = std::to_string(b.pid);
  if (b.state == 'T') return "continue it: `kill -CONT " + pid + "`, then find who stopped it";
  if (b.state == 't')
    return "detach its tracer (`timeout 5 grep TracerPid /proc/" + pid + "/status` names it)";
  return "find what it waits on in the kernel (`timeout 5 cat /proc/" + pid + "/stack`, as root)";
}

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const SystemdBusStalledDetails& d = f.details<SystemdBusStalledDetails>();
  CauseWords w;
  SystemdBusStalledDetails::BusDaemon unnamed;
  unnamed.comm = "the bus daemon";
  unnamed.seconds = f.seconds;
  const SystemdBusStalledDetails::BusDaemon& b = d.bus ? *d.bus : unnamed;
  w.reason = bus_words(b) + " has been " + state_words(b.state) + " for " + text::elapsed(b.seconds) +
             " (threshold " + text::elapsed(d.threshold_seconds) + ")";
  const bool waiting = f.form != Form::kNothingHangsYet && !f.processes.empty();
  if (waiting) w.reason += "; " + waiting_words(f);
  w.summary = "systemd's bus answers nothing: " + w.reason +
              ". With the systemd cgroup driver runc asks systemd for each container's cgroup over this bus, with "
              "no deadline on the call, so " +
              (waiting ? std::string("every pod and container start waits until the bus runs again")
                       : std::string("no start waits on it yet, but the next pod or container start will")) +
              ". The runtime, the kubelet and the running pods are fine.";
  w.action = fix_words(b) + "; the waiting starts go on by themselves once it answers; never restart the runtime, "
             "the kubelet or dbus for it";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## systemd_bus_stalled once the placeholders are filled with
// runbook_command_names(). Edit both or the unit test cause_texts_test fails.
// clang-format off
const CauseWording systemd_bus_stalled_wording = {
  {"`timeout 5 grep State /proc/<pid>/status` of the bus daemon the report names (`timeout 10 systemctl show -P "
   "MainPID dbus.service`, or `dbus-broker.service`) says `T (stopped)`, `t (tracing stop)` or `D`; `timeout 10 "
   "busctl status org.freedesktop.systemd1` gets no answer. The runc the report names is still there, older "
   "than the hang threshold (`timeout 5 cat /proc/<runc-pid>/wchan` says a futex wait), and `{crictl} pods` "
   "lists no ready sandbox for the pod it starts.",
   "Let the bus daemon run again. Stopped by a signal (`T`): `kill -CONT <pid>`, then find who stopped it "
   "(`timeout 20 journalctl --since -1h | grep -i -E 'dbus|sigstop'`). Stopped by a tracer (`t`): detach the "
   "tracer that `timeout 5 grep TracerPid /proc/<pid>/status` names. In `D`: its kernel stack (`timeout 5 cat "
   "/proc/<pid>/stack`, as root) says what it waits on, usually storage; fix that. The waiting `runc create` "
   "goes on as soon as the bus answers, and the pod's start with it.",
   "Restart the runtime, the kubelet or the pods for it: they are fine, and every container start after the "
   "restart waits on the same bus. Do not restart dbus either: systemd, logind and every other client lose "
   "their connection, and a stopped daemon only needs to be continued. Do not reboot for a stopped bus."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
