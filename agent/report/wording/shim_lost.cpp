// The words of shim_lost: a container the runtime lists as running whose
// helper died, named with its pod; whether its process still runs unwatched.
#include "diagnoser/rules/shim_lost.h"
#include "report/wording.h"

namespace plegscope {
namespace {

std::string container_words(const Finding::HostProcess& p) {
  return p.comm + (p.count > 0 ? " (its process, pid " + std::to_string(p.pid) + ", still runs, unwatched)"
                               : " (its process, pid " + std::to_string(p.pid) + ", is gone)");
}

CauseWords words_of(const Finding& f, const RuntimeModel& runtime) {
  const std::string helper = helper_name(runtime);
  CauseWords w;
  const std::string pods = f.pods.empty() ? "a pod the agent has not inspected" : pods_words(f.pods);
  std::string which = f.processes.empty() ? "a container" : "container " + container_words(f.processes.front());
  if (f.processes.size() > 1)
    which += ", and " + text::count(static_cast<long>(f.processes.size() - 1), "other", "others");
  w.reason = which + " of " + pods + " is listed as running while no " + helper + " serves it";
  w.summary = "A container's " + helper + " died and the runtime still reports the container running: " + w.reason +
              ". The runtime learns a container's exit only from its " + helper +
              ", so it will not see this one exit: the "
              "kubelet never restarts it and the pod's status stays stale. The PLEG reads the same stale state.";
  w.action = "recreate that pod (delete it, its controller makes a new one) and find why its " + helper +
             " died (an OOM kill or a crash in the journal)";
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  "`{crictl} inspect <container-id>` says `CONTAINER_RUNNING` while no conmon process names the "
  "container (`timeout 10 grep -l -a <container-id> /proc/[0-9]*/cmdline` finds none); `ls "
  "/proc/<pid>` of its `info.pid` says whether its process still runs. `timeout 20 journalctl -k "
  "--since -1h | grep -i -E 'oom|killed process'` and the runtime's journal say why the conmon ended.",
  "Delete the pod (`kubectl delete pod`): its controller creates a new one with a new conmon. If its "
  "process still runs, the delete stops it. Then fix why the conmon died: a memory limit on the "
  "runtime's cgroup that kills its helpers, a crash in the journal.",
  "Restart the runtime for it: the container is still listed and still has no conmon after the "
  "restart. Do not leave the pod: its container's exit will never be seen, so the kubelet never "
  "restarts it.",
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## shim_lost
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording shim_lost_wording = {
  {"`{crictl} inspect <container-id>` says `CONTAINER_RUNNING` while no shim process names the container "
   "(`timeout 10 grep -l -a <container-id> /proc/[0-9]*/cmdline` finds none); `ls /proc/<pid>` of its "
   "`info.pid` says whether its process still runs. `timeout 20 journalctl -k --since -1h | grep -i -E 'oom|killed process'` and the runtime's journal "
   "say why the shim ended.",
   "Delete the pod (`kubectl delete pod`): its controller creates a new one with a new shim. If its process "
   "still runs, the delete stops it. Then fix why the shim died: a memory limit on the runtime's cgroup that "
   "kills its helpers, a crash in the journal.",
   "Restart the runtime for it: the container is still listed and still has no shim after the restart. Do not "
   "leave the pod: its container's exit will never be seen, so the kubelet never restarts it."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
