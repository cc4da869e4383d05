// The words of defunct_processes: zombies piling up, by parent.
#include "diagnoser/rules/defunct_processes.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const DefunctProcessesDetails& d = f.details<DefunctProcessesDetails>();
  CauseWords w;
  w.reason = text::count(d.zombies, "zombie process is", "zombie processes are") + " on the node";
  if (d.objects > 0) w.reason += ", " + text::count(d.objects, "more", "more") + " across the recent scans";
  if (!f.processes.empty()) {
    w.reason += "; most under ";
    for (size_t i = 0; i < f.processes.size() && i < 3; ++i) {
      const auto& p = f.processes[i];
      w.reason += (i ? ", " : "") + (p.comm.empty() ? std::string("a parent") : p.comm) + " (pid " +
                  std::to_string(p.pid) + ", " + std::to_string(p.count) + ")";
    }
  }
  if (!f.pods.empty()) w.reason += ", of " + pods_words(f.pods);
  w.action = "find the parent that does not reap its children and fix or restart that pod";
  w.summary = "Zombies pile up: " + w.reason + ".";
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  "`threads Z | awk '{ print $3 }' | sort | uniq -c | sort -rn | head` counts zombies by parent "
  "(`threads` is the runbook's `/proc` reader: `ps` reads every cmdline and blocks behind a process in "
  "D); `timeout 5 cat /proc/<ppid>/comm` names the parent; a `conmon` parent names its pod in its `-n "
  "k8s_<container>_<pod>_<namespace>_<uid>_<attempt>` argument (then `{crictl} inspect <container-id>` "
  "of its `-c` argument). `{crictl} stats` for a container whose init does not reap.",
  "Fix the parent: a container whose PID 1 does not reap its children needs an init (`tini`, "
  "`shareProcessNamespace`, or the runtime's `--init`); restart that pod. Zombies under a conmon clear "
  "when the conmon's pod is removed. Upgrade a runtime with a known reaping bug.",
  nullptr,
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## defunct_processes
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording defunct_processes_wording = {
  {"`threads Z | awk '{ print $3 }' | sort | uniq -c | sort -rn | head` counts zombies by parent (`threads` is "
   "the runbook's `/proc` reader: `ps` reads every cmdline and blocks behind a process in D); `timeout 5 cat "
   "/proc/<ppid>/comm` names the parent; a `containerd-shim` parent serves the pod whose pause process it is "
   "the parent of (the sandbox's `init.pid`, runbook \"On the node\"; then `{crictl} inspectp <sandbox-id>`). "
   "`{crictl} stats` for a container whose init does not reap.",
   "Fix the parent: a container whose PID 1 does not reap its children needs an init (`tini`, "
   "`shareProcessNamespace`, or the runtime's `--init`); restart that pod. Zombies under a shim clear when the "
   "shim's pod is removed. Upgrade a runtime with a known reaping bug.",
   "Kill the zombies: they are already dead, only their parent can reap them. Do not restart the runtime for "
   "this: the zombies belong to the pods, not to it."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
