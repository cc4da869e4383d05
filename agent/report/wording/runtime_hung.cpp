// The words of runtime_hung: a CRI call in flight past --hang-threshold, or list calls past their deadline.
#include "diagnoser/rules/runtime_hung.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel& runtime) {
  const RuntimeHungDetails& d = f.details<RuntimeHungDetails>();
  const std::string helper = helper_name(runtime);
  CauseWords w;
  switch (f.form) {
    case Form::kStalling:
      w.reason = "list calls hit their deadline (DEADLINE_EXCEEDED) in " + text::count(d.relists, "relist", "relists") +
                 " of the last " + text::elapsed(d.window_seconds) + ", with good relists between them";
      w.action = "capture the runtime's goroutine dump during a stall and look for a stuck " + helper;
      w.summary = "The runtime stalls on and off: " + w.reason + ".";
      break;
    case Form::kDeadlines:
      w.reason = "list calls hit their deadline (DEADLINE_EXCEEDED) in " +
                 text::count(d.relists, "recent relist", "recent relists");
      w.action = std::string(runtime.family == RuntimeFamily::kCrio ? "capture CRI-O's" : "capture the runtime's") +
                 " goroutine dump" + restart_words(runtime);
      w.summary = "The runtime stopped answering: " + w.reason + ".";
      break;
    case Form::kStuckPod:  // one pod's calls hang, lists answer
      w.reason = cri_method(f.op) + " for " + pods_words(f.pods) + " has been in flight for " +
                 text::elapsed(f.seconds) + " (hang threshold " + text::elapsed(d.threshold_seconds) +
                 ") while list calls answer in " + text::elapsed(d.list_seconds);
      w.action = "look at that " + std::string(runtime.family == RuntimeFamily::kCrio ? "container's " : "pod's ") +
                 helper + " and storage first; restarting the runtime is not the first remedy";
      w.summary = "One pod is stuck, not the runtime: " + w.reason + ". Restarting the runtime does not free a " +
                  helper + " stuck on storage.";
      break;
    default:  // Form::kCallHung
      w.reason = cri_method(f.op) + " has been in flight for " + text::elapsed(f.seconds) + " (hang threshold " +
                 text::elapsed(d.threshold_seconds) + ")";
      w.action = hung_runtime_words(runtime);
      if (d.pod_relist) {
        // The kubelet's on-demand relist of one pod (1.36+) shares the
        // global relist's worker and lock: the hung list of that pod is
        // what every global relist waits behind.
        w.reason += ", in the on-demand relist of " + pod_words(f.pods.front()) +
                    " alone, which the 1.36+ kubelet runs on the same worker and lock as its global relist";
        if (d.relists > 0)
          w.reason += ", after " + text::count(d.relists, "relist", "relists") + " that ended at their deadline";
        w.summary = "A CRI call is hung: " + w.reason + ", so no global relist can start until it returns";
        if (d.kubelet_flat_seconds)
          w.summary += "; the kubelet's own relist count has not advanced for " +
                       text::elapsed(*d.kubelet_flat_seconds);
        w.summary += ". The list reads the runtime's store, not the pod's " + helper + ": the hang is the runtime's.";
      } else {
        if (!f.pods.empty()) w.reason += ", for " + pods_words(f.pods);
        if (d.relists > 0)
          w.reason += ", after " + text::count(d.relists, "relist", "relists") + " that ended at their deadline";
        w.summary = "A CRI call is hung: " + w.reason + ", so the relist cannot finish.";
      }
      if (d.runtime_metrics_failed)
        w.summary += " The runtime's own metrics page does not answer either: the runtime is blocked, not slow.";
      if (d.no_helper_in_d)
        w.summary += " No pod's runtime helper is stuck in the kernel: the runtime itself holds the call, so a "
                     "restart is expected to clear it (capture its goroutine dump first).";
      break;
  }
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On containerd.
constexpr RuntimeText kOnContainerd = {
  nullptr,
  "Capture evidence first: the runtime's goroutine dump (`timeout 10 systemctl kill --kill-who=main -s "
  "USR1 {service}`; containerd writes it to its journal) and the D-state processes. Then restart the "
  "runtime once (`systemctl restart {service}`): running containers keep running. A wedged shim: kill "
  "that shim, found by its pod's sandbox id (runbook, \"On the node\"). Processes stuck in D state on "
  "storage: fix the storage first (unmount the dead NFS mount, replace the failing disk), or the "
  "restarted runtime hangs again. If it does, cordon and drain the node by hand, with `--timeout` and "
  "`--disable-eviction` (runbook, \"Draining by hand\"): a plain drain waits forever for pods the "
  "runtime cannot stop.",
  nullptr,
};
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  "`{crictl} ps -a -q` fails too, after 10 s, with `DeadlineExceeded`; `{crictl} inspect "
  "<container-id>` of a recently changed container may fail on that one container. Look for processes "
  "stuck in D state (a conmon or `runc` stuck in the kernel): `threads D` (the runbook's `/proc` "
  "reader, \"On the node\"; not `ps`, which reads every process's cmdline and blocks behind a process in "
  "D) and `timeout 10 dmesg | grep -i 'blocked for more'`.",
  "Capture evidence first: the runtime's goroutine dump (`timeout 10 systemctl kill --kill-who=main -s "
  "USR1 {service}`; CRI-O writes it to `/tmp/crio-goroutine-stacks-*.log`) and the D-state processes. "
  "CRI-O's watchdog will restart it (the shipped unit's `WatchdogSec`), or restart it once (`systemctl "
  "restart {service}`): running containers keep running under their conmon. A wedged conmon: look at "
  "conmon, the stuck container's own (`-c <container-id>` on its command line), and kill that one. "
  "Processes stuck in D state on storage: fix the storage first (unmount the dead NFS mount, replace "
  "the failing disk), or the restarted runtime hangs again. If it does, cordon and drain the node by "
  "hand, with `--timeout` and `--disable-eviction` (runbook, \"Draining by hand\"): a plain drain waits "
  "forever for pods the runtime cannot stop.",
  nullptr,
};
// On CRI-O before 1.32: no watchdog, so it is restarted by hand.
constexpr RuntimeText kOnCrioBeforeWatchdog = {
  "`{crictl} ps -a -q` fails too, after 10 s, with `DeadlineExceeded`; `{crictl} inspect "
  "<container-id>` of a recently changed container may fail on that one container. Look for processes "
  "stuck in D state (a conmon or `runc` stuck in the kernel): `threads D` (the runbook's `/proc` "
  "reader, \"On the node\"; not `ps`, which reads every process's cmdline and blocks behind a process in "
  "D) and `timeout 10 dmesg | grep -i 'blocked for more'`.",
  "Capture evidence first: the runtime's goroutine dump (`timeout 10 systemctl kill --kill-who=main -s "
  "USR1 {service}`; CRI-O writes it to `/tmp/crio-goroutine-stacks-*.log`) and the D-state processes. "
  "restart it once, as no watchdog will (CRI-O's unit ships `WatchdogSec` from 1.32) (`systemctl "
  "restart {service}`): running containers keep running under their conmon. A wedged conmon: look at "
  "conmon, the stuck container's own (`-c <container-id>` on its command line), and kill that one. "
  "Processes stuck in D state on storage: fix the storage first (unmount the dead NFS mount, replace "
  "the failing disk), or the restarted runtime hangs again. If it does, cordon and drain the node by "
  "hand, with `--timeout` and `--disable-eviction` (runbook, \"Draining by hand\"): a plain drain waits "
  "forever for pods the runtime cannot stop.",
  nullptr,
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return runtime.watchdog_restarts ? kOnCrio : kOnCrioBeforeWatchdog;
  if (runtime.family == RuntimeFamily::kContainerd) return kOnContainerd;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## runtime_hung
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording runtime_hung_wording = {
  {"`{crictl} ps -a -q` fails too, after 10 s, with `DeadlineExceeded`; `{crictl} inspect <container-id>` of a "
   "recently changed container may fail on that one container. Look for processes stuck in D state (a shim or "
   "`runc` stuck in the kernel): `threads D` (the runbook's `/proc` reader, \"On the node\"; not `ps`, which "
   "reads every process's cmdline and blocks behind a process in D) and `timeout 10 dmesg | grep -i 'blocked "
   "for more'`.",
   "Capture evidence first: the runtime's goroutine dump (`timeout 10 systemctl kill --kill-who=main -s USR1 "
   "{service}`; containerd writes it to its journal, CRI-O to `/tmp/crio-goroutine-stacks-*.log`) and the "
   "D-state processes. Then restart the runtime once (`systemctl restart {service}`): running containers keep "
   "running. A wedged shim: kill that shim, found by its pod's sandbox id (runbook, \"On the node\"). Processes "
   "stuck in D state on storage: fix the storage first (unmount the dead NFS mount, replace the failing disk), "
   "or the restarted runtime hangs again. If it does, cordon and drain the node by hand, with `--timeout` and "
   "`--disable-eviction` (runbook, \"Draining by hand\"): a plain drain waits forever for pods the runtime "
   "cannot stop.",
   "Restart the runtime in a loop, and never reboot automatically: with a process stuck in D state the shutdown "
   "may hang too, and the dump is lost."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
