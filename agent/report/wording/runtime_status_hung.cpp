// The words of runtime_status_hung: the runtime's CRI Status has no good answer, the kubelet's 30 s path to NotReady.
#include "diagnoser/rules/runtime_status_hung.h"
#include "report/wording.h"

namespace plegscope {
namespace {

// When the kubelet's 30 s rule says "down", or how long until it does.
std::string down_words(const Finding& f) {
  const RuntimeStatusHungDetails& d = f.details<RuntimeStatusHungDetails>();
  if (d.status_down_in_seconds && *d.status_down_in_seconds <= 0)
    return "the kubelet now says \"container runtime is down\" and the node is NotReady";
  return "the kubelet says \"container runtime is down\" (node NotReady) in " +
         text::elapsed(d.status_down_in_seconds.value_or(0));
}

// The runtime's child the pending call waits on, as measured; "" when none.
std::string waits_on_words(const Finding& f) {
  const RuntimeStatusHungDetails& d = f.details<RuntimeStatusHungDetails>();
  if (f.processes.empty()) return "";
  const Finding::HostProcess& p = f.processes.front();
  std::string w = "; " + d.waits_on_daemon + " started `" + p.comm + "` (pid " + std::to_string(p.pid) + ") " +
                  text::elapsed(p.seconds) + " ago, before this call, and it has not returned";
  if (d.waits_on_daemon == "containerd") w += " (containerd runs each CNI network's STATUS inside Status)";
  return w;
}

CauseWords words_of(const Finding& f, const RuntimeModel& runtime) {
  const RuntimeStatusHungDetails& d = f.details<RuntimeStatusHungDetails>();
  CauseWords w;
  const std::string since = "the runtime's Status has had no good answer for " + text::elapsed(f.seconds);
  switch (f.form) {
    case Form::kStatusFailing:
      w.reason = since + " (" + text::count(d.calls, "call", "calls") + " in a row failed)";
      w.action = "read the runtime's log for the Status error; restart the runtime once if it persists";
      break;
    case Form::kStatusWhileListsAnswer:
      w.reason = since + " while its container lists answer in " + text::elapsed(d.list_seconds) + waits_on_words(f);
      w.action = f.processes.empty()
                     ? "capture the runtime's goroutine dump and look for Status waiting on the CNI library; end the "
                       "stuck CNI plugin call, then restart the runtime once"
                     : "end `" + f.processes.front().comm + "` (pid " + std::to_string(f.processes.front().pid) +
                           ") or fix the plugin it is (its own log says what it waits on); restart the runtime "
                           "once only if Status still hangs after";
      break;
    default:  // Form::kStatusWithLists
      w.reason = since + ", and the container lists hang too" + waits_on_words(f);
      w.action = hung_runtime_words(runtime);
      break;
  }
  if (d.calls > 0 && f.form != Form::kStatusFailing)
    w.reason += " (" + text::count(d.calls, "retry", "retries") + " ended at the deadline)";
  const bool down = d.status_down_in_seconds && *d.status_down_in_seconds <= 0;
  w.summary = std::string(down ? "The runtime is down for the kubelet: " : "The runtime is about to be down for the kubelet: ") +
              w.reason + "; " + down_words(f) + ".";
  if (f.form == Form::kStatusWhileListsAnswer) w.summary += " PLEG sees nothing wrong: its lists answer.";
  if (d.ready_message_agrees) w.summary += " The kubelet's Ready message says so.";
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On containerd.
constexpr RuntimeText kOnContainerd = {
  nullptr,
  "Capture the runtime's goroutine dump first (`timeout 10 systemctl kill --kill-who=main -s USR1 "
  "{service}`; containerd writes it to its journal) and look for `Status` waiting on the CNI library. "
  "Find the CNI plugin call that does not return (its process under the runtime, the plugin's own log) "
  "and end it or fix the plugin; then restart the runtime once (`systemctl restart {service}`): "
  "running containers keep running. On containerd 2.0.1 or 2.0.2 upgrade to 2.0.3 or later (the go-cni "
  "deadlock).",
  nullptr,
};
// On containerd outside 2.0.1-2.0.2: no go-cni deadlock to upgrade from.
constexpr RuntimeText kOnContainerdWithoutGoCni = {
  nullptr,
  "Capture the runtime's goroutine dump first (`timeout 10 systemctl kill --kill-who=main -s USR1 "
  "{service}`; containerd writes it to its journal) and look for `Status` waiting on the CNI library. "
  "Find the CNI plugin call that does not return (its process under the runtime, the plugin's own log) "
  "and end it or fix the plugin; then restart the runtime once (`systemctl restart {service}`): "
  "running containers keep running.",
  nullptr,
};
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  nullptr,
  "Capture the runtime's goroutine dump first (`timeout 10 systemctl kill --kill-who=main -s USR1 "
  "{service}`; CRI-O writes it to `/tmp/crio-goroutine-stacks-*.log`) and look for `Status` waiting on "
  "the CNI library. Find the CNI plugin call that does not return (its process under the runtime, the "
  "plugin's own log) and end it or fix the plugin; then restart the runtime once (`systemctl restart "
  "{service}`): running containers keep running.",
  nullptr,
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  if (runtime.family == RuntimeFamily::kContainerd)
    return runtime.go_cni_deadlock_possible ? kOnContainerd : kOnContainerdWithoutGoCni;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## runtime_status_hung once the placeholders are filled with
// runbook_command_names(). Edit both or cause_texts_test fails.
// clang-format off
const CauseWording runtime_status_hung_wording = {
  {"`{crictl} info` fails after 10 s with `DeadlineExceeded` while `{crictl} ps -q` answers at once; "
   "`kubectl describe node {node}` shows `container runtime is down` in the Ready condition. `timeout 20"
   " journalctl -u {service} --since -15m | grep -iE 'cni|network'` shows the CNI configuration reloads "
   "and plugin calls around it.",
   "Capture the runtime's goroutine dump first (`timeout 10 systemctl kill --kill-who=main -s USR1 "
   "{service}`; containerd writes it to its journal, CRI-O to `/tmp/crio-goroutine-stacks-*.log`) and "
   "look for `Status` waiting on the CNI library. "
   "Find the CNI plugin call that does not return (its process under the runtime, the plugin's own log) "
   "and end it or fix the plugin; then restart the runtime once (`systemctl restart {service}`): running"
   " containers keep running. On containerd 2.0.1 or 2.0.2 upgrade to 2.0.3 or later (the go-cni "
   "deadlock).",
   "Restart the kubelet or drain the node because PLEG is healthy and the node is still `NotReady`: the "
   "kubelet calls the same `Status` and says the same; do not reboot for it either. Do not delete the "
   "CNI configuration with pods running."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
