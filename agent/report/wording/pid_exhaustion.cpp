// The words of pid_exhaustion: a PID limit nearly reached, named.
#include "diagnoser/rules/pid_exhaustion.h"
#include "report/wording.h"

namespace plegscope {
namespace {

std::string limit_words(const Finding& f) {
  const PidExhaustionDetails& d = f.details<PidExhaustionDetails>();
  if (d.limit_scope == "runtime") return "the runtime's pids cgroup" + (d.limit_cgroup.empty() ? "" : " (" + d.limit_cgroup + ")");
  if (d.limit_scope == "kubepods") return "the kubepods pids cgroup" + (d.limit_cgroup.empty() ? "" : " (" + d.limit_cgroup + ")");
  if (d.limit_scope == "node_threads_max") return "the node's threads-max";
  if (d.limit_scope == "node_pid_max") return "the node's pid_max";
  return d.limit_scope;
}

CauseWords words_of(const Finding& f, const RuntimeModel& runtime) {
  const PidExhaustionDetails& d = f.details<PidExhaustionDetails>();
  CauseWords w;
  w.reason = limit_words(f) + " is " + text::fmt("%.0f", d.share * 100) + "% used (" + std::to_string(d.current) +
             " of " + std::to_string(d.maximum) + ")";
  w.action = d.limit_scope == "runtime" ? "raise the runtime service's TasksMax and find what leaks processes"
                                        : "find the pods that leak processes and set podPidsLimit";
  w.summary = "PIDs are running out: " + w.reason + ", so new " + helper_name(runtime) +
              "s, runc and exec calls fail to fork.";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## pid_exhaustion
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording pid_exhaustion_wording = {
  {"The runtime's limit: `systemctl show {service} -p TasksMax -p TasksCurrent`, or `cat` the `pids.current` "
   "and `pids.max` of the cgroup in `/proc/$(timeout 5 systemctl show -p MainPID --value {service})/cgroup`. "
   "Kubepods: `cat /sys/fs/cgroup/kubepods.slice/pids.current /sys/fs/cgroup/kubepods.slice/pids.max` (cgroup "
   "v1: under `/sys/fs/cgroup/pids/`). The node: `threads | wc -l` (the runbook's `/proc` reader, not `ps`) "
   "against `cat /proc/sys/kernel/pid_max /proc/sys/kernel/threads-max`. `threads | awk '{ print $3 }' | sort | "
   "uniq -c | sort -rn | head` for the parent with most threads. Containers that fail to start with `resource "
   "temporarily unavailable` (`{crictl} ps -a`, the runtime's log) are the sign.",
   "Find what leaks processes or threads and fix or restart that pod; set `podPidsLimit` in the kubelet "
   "configuration so one pod cannot exhaust the node. For the runtime's own cgroup raise `TasksMax` (a systemd "
   "drop-in for {service}, then `systemctl daemon-reload`); for the node raise `kernel.pid_max`.",
   "Restart the runtime to free PIDs: the leaking pods keep running and the limit is hit again. Do not raise "
   "the limit without finding the leak."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
