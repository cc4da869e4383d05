// The words of shim_hung (issue 17): a pod's runtime helper (shim, conmon,
// runc) stuck in uninterruptible sleep, named with its pod, pid and wchan.
#include "report/wording.h"

namespace plegscope {
namespace {

std::string process_words(const Finding::HostProcess& p) {
  std::string meaning = wchan_meaning(p.wchan);
  std::string where = p.wchan.empty() || p.wchan == "0"
                          ? "at an unknown kernel function (wchan unreadable)"
                          : "in " + p.wchan + (meaning.empty() ? " (meaning unknown)" : ", usually " + meaning);
  return p.comm + " (pid " + std::to_string(p.pid) + (p.count > 1 ? ", " + std::to_string(p.count) + " tasks" : "") +
         ") has been in D for at least " + text::duration(p.seconds) + " " + where;
}

CauseWords words_of(const Finding& f) {
  CauseWords w;
  std::string what = f.processes.empty() ? "a runtime helper is in D" : process_words(f.processes.front());
  if (f.processes.size() > 1)
    what += ", and " + text::count(static_cast<long>(f.processes.size() - 1), "other helper", "other helpers");
  const std::string pods = f.pods.empty() ? "a pod the agent has not inspected" : pods_words(f.pods);
  if (f.form == Form::kBehindHungCall) {
    w.reason = cri_method(f.op) + " for " + pods + " has been in flight for " + text::duration(f.seconds) +
               " because its " + what;
    w.summary = "A pod's shim is stuck in the kernel: " + w.reason + ". Restarting the runtime does not free it.";
  } else {
    w.reason = "the runtime helper of " + pods + " is stuck: " + what;
    w.summary = "A pod's shim is stuck in the kernel: " + w.reason + ".";
  }
  w.action = "read that pid's kernel stack (as root) and fix what it waits on; restarting the runtime is not the "
             "first remedy";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## shim_hung
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording shim_hung_wording = {
  {"`threads D` (the runbook's `/proc` reader, \"On the node\"; not `ps`, which reads every process's cmdline "
   "and blocks behind a process in D) lists the threads in D with their wchan; `timeout 5 cat "
   "/proc/<pid>/stack` shows the whole kernel stack (root only: without root, or without ptrace rights in a "
   "container, wchan reads 0 and the stack is empty). `timeout 10 dmesg | grep -i 'blocked for more'` shows the "
   "hung task warnings. `{crictl} inspectp <sandbox-id>` of the named pod fails after 10 s while `{crictl} pods "
   "-q` answers. `mount | grep -E 'nfs|ceph|cifs'` and `timeout 10 iostat -x 1 5` for the storage behind it.",
   "Fix what the process waits on: bring the NFS server back or unmount the dead mount (`umount -f -l`), "
   "replace or fail over the stuck disk, wait for the unmount under heavy IO to finish. A process in D cannot "
   "be killed until the kernel call returns; once the storage answers, the shim finishes and the pod's calls "
   "return. If it never returns, cordon and drain the node by hand, with `--timeout` and `--disable-eviction` "
   "(runbook, \"Draining by hand\"): only a node restart ends it.",
   "Restart the runtime first: the stuck shim stays in D and the restarted runtime hangs on the same pod. Never "
   "`kill -9` in a loop: it cannot end a process in D."},
  words_of,
};
// clang-format on

}  // namespace plegscope
