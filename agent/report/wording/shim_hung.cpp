// The words of shim_hung: a pod's runtime helper (shim, conmon,
// runc) stuck in uninterruptible sleep, named with its pod, pid and wchan.
#include "diagnoser/rules/shim_hung.h"
#include "report/wording.h"

namespace plegscope {
namespace {

// What a kernel stack's class says the task waits on.
std::string stack_class_words(const std::string& c) {
  if (c == "freezer") return "the cgroup freezer holds it, its cgroup is frozen (freezer.state FROZEN or cgroup.freeze 1)";
  if (c == "storage") return "it waits on a disk";
  if (c == "network_fs") return "it waits on a network filesystem (NFS, CIFS, Ceph, FUSE) that does not answer";
  if (c == "overlayfs") return "it waits in overlayfs, the container's root filesystem";
  if (c == "cgroup") return "a cgroup operation does not finish";
  if (c == "reclaim") return "it waits on memory reclaim";
  return "";
}

// With --kernel-stacks the stack's top frame says where it waits; else wchan.
std::string where_words(const Finding::HostProcess& p) {
  if (p.kernel_frame.empty()) return wchan_words(p.wchan, p.wchan_hidden);
  std::string meaning = stack_class_words(p.kernel_class);
  if (meaning.empty()) meaning = wchan_meaning(p.kernel_frame);
  return "in the kernel at " + p.kernel_frame + ", by its kernel stack" + (meaning.empty() ? "" : ": " + meaning);
}

// cgroup v2's freezer stops a task in S, not D: its cgroup says so.
std::string frozen_words(const Finding::HostProcess& p) {
  const std::string state = p.freeze_incomplete
                                ? "asked to freeze (cgroup.freeze 1) and never frozen (cgroup.events frozen 0): a "
                                  "freeze that cannot complete, as runc leaves after its update times out"
                                : "frozen (cgroup.events frozen 1): its tasks sleep in S, trapped in the freezer" +
                                      (p.wchan.empty() || p.wchan == "0" ? std::string() : " at " + p.wchan);
  return p.comm + " (pid " + std::to_string(p.pid) + ") has been stopped for at least " + text::elapsed(p.seconds) +
         ": its cgroup " + p.frozen_cgroup + " is " + state;
}

std::string process_words(const Finding::HostProcess& p) {
  if (!p.frozen_cgroup.empty()) return frozen_words(p);
  const std::string where = where_words(p);
  return p.comm + " (pid " + std::to_string(p.pid) + (p.count > 1 ? ", " + std::to_string(p.count) + " tasks" : "") +
         ") has been in D for at least " + text::elapsed(p.seconds) + " " + where +
         (p.hung_task ? "; " + hung_task_words(*p.hung_task) : "");
}

// A runtime whose lists take no container lock: the stuck helper slows only
// its pod's status calls, the lists answer and relists go on, late.
// The helper as the node's runtime has it, with whose it is: one shim per
// pod on containerd, one conmon per container on CRI-O.
std::string whose_helper(const RuntimeModel& runtime) {
  return runtime.family == RuntimeFamily::kCrio ? "container's conmon" : "pod's shim";
}

// What the lists wait on while a call holds a container's lock, by runtime.
const char* lock_words(const RuntimeModel& runtime) {
  switch (runtime.family) {
    case RuntimeFamily::kCrio: return "";
    case RuntimeFamily::kContainerd: return " (containerd's per-container status lock)";
    default: return " (containerd's per-container status lock; CRI-O's container locks work the same way)";
  }
}

CauseWords slow_status_words(const Finding& f, const std::string& what, const std::string& pods,
                             const RuntimeModel& runtime) {
  const bool in_flight = f.details<ShimHungDetails>().call_in_flight;
  CauseWords w;
  w.reason = cri_method(f.op) + " for " + pods + (in_flight ? " has been in flight for " : " took ") +
             text::elapsed(f.seconds) + " because its " + what;
  w.summary = "A " + whose_helper(runtime) + " is stuck, and that pod's status calls wait on it: " + w.reason +
              ". This runtime's lists take no container lock, so the lists answer and only that pod's inspection "
              "waits: every relist that inspects the pod is late by as long, it does not stop. Restarting the "
              "runtime does not free it.";
  w.action = "look at that " + whose_helper(runtime) + " and what it, or a `runc update` or `runc state` it waits on, is stuck on; "
             "the pod's status calls answer once it is freed";
  return w;
}

CauseWords words_of(const Finding& f, const RuntimeModel& runtime) {
  const ShimHungDetails& d = f.details<ShimHungDetails>();
  const std::string helper = helper_name(runtime);
  const bool crio = runtime.family == RuntimeFamily::kCrio;
  CauseWords w;
  std::string what = f.processes.empty() ? "a runtime helper is in D" : process_words(f.processes.front());
  if (f.processes.size() > 1)
    what += ", and " + text::count(static_cast<long>(f.processes.size() - 1), "other helper", "other helpers");
  const std::string pods = f.pods.empty() ? "a pod the agent has not inspected" : pods_words(f.pods);
  if (f.form == Form::kBehindHungLists) {
    const std::string lists = d.call_in_flight ? cri_method(f.op) + " has been in flight for " + text::elapsed(f.seconds)
                                               : "list calls hit their deadline (DEADLINE_EXCEEDED) " +
                                                     text::count(d.relists, "time", "times");
    w.reason = lists + " because the runtime waits on the stuck " + helper + " of " + pods + ": its " + what;
    w.summary = "A " + whose_helper(runtime) + " is stuck in the kernel, and the runtime's lists wait on it: " +
                w.reason + ". The chain: a call for that pod (the kubelet's status, stop or update call) waits on its " +
                helper + " while holding the container's lock, and every list waits on that lock" +
                lock_words(runtime) + "." +
                (d.runtime_metrics_failed ? " The runtime's own metrics page does not answer either: the runtime is "
                                            "blocked behind the " + helper + ", not slow."
                                          : "") +
                " Restarting the runtime would not fix it: the restarted runtime waits on the same " + helper +
                "; only what the " + helper + " waits on in the kernel frees it.";
    w.action = !f.processes.empty() && !f.processes.front().frozen_cgroup.empty()
                   ? "thaw that pod's frozen cgroup " + f.processes.front().frozen_cgroup +
                         " (write 0 to its cgroup.freeze) once you know what froze it; restarting the runtime would "
                         "hang again on the same " + helper
                   : "fix what that " + whose_helper(runtime) +
                         " waits on in the kernel (the storage under that pod); restarting the runtime would hang "
                         "again on the same " + helper;
    return w;
  }
  if (f.form == Form::kNothingHangsYet) {
    w.reason = "the runtime helper of " + pods + " is stuck in the kernel, though no call hangs yet: " + what;
    w.summary = "A " + whose_helper(runtime) + " is stuck in the kernel, a risk before it is a hang: " + w.reason +
                ". The next call for that pod will wait on it, and " +
                (crio ? "so do that container's status calls (CRI-O's lists take no container lock)"
                      : "once a call waits while holding the container's lock, every list waits too") +
                ". Restarting the runtime would not free it.";
    w.action = "fix what that " + helper + " waits on before a call for its " +
               (crio ? "container hangs" : "pod hangs the runtime's lists");
    return w;
  }
  if (f.form == Form::kBehindSlowStatus) return slow_status_words(f, what, pods, runtime);
  if (f.form == Form::kBehindHungCall) {
    w.reason = cri_method(f.op) + " for " + pods + " has been in flight for " + text::elapsed(f.seconds) +
               " because its " + what;
    w.summary = "A " + whose_helper(runtime) + " is stuck in the kernel: " + w.reason +
                ". Restarting the runtime does not free it.";
  } else {
    w.reason = "the runtime helper of " + pods + " is stuck: " + what;
    w.summary = "A " + whose_helper(runtime) + " is stuck in the kernel: " + w.reason + ".";
  }
  const Finding::HostProcess* top = f.processes.empty() ? nullptr : &f.processes.front();
  if (top && !top->frozen_cgroup.empty()) {
    w.action = "find what froze " + top->frozen_cgroup + " (a runtime's pause, a timed-out runc update) and thaw it "
               "(write 0 to its cgroup.freeze); restarting the runtime is not the first remedy";
    return w;
  }
  w.action = top && !top->kernel_frame.empty()
                 ? "fix what its kernel stack shows it waits on (" + top->kernel_frame +
                       "); restarting the runtime is not the first remedy"
                 : "read that pid's kernel stack (as root) and fix what it waits on; restarting the runtime is not the "
                   "first remedy";
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  nullptr,
  "Fix what the process waits on: bring the NFS server back or unmount the dead mount (`umount -f "
  "-l`), replace or fail over the stuck disk, wait for the unmount under heavy IO to finish. A process "
  "in D cannot be killed until the kernel call returns; once the storage answers, the conmon finishes "
  "and the pod's calls return. If it never returns, cordon and drain the node by hand, with "
  "`--timeout` and `--disable-eviction` (runbook, \"Draining by hand\"): only a node restart ends it.",
  "Restart the runtime first: the stuck conmon stays in D and the restarted runtime hangs on the same "
  "pod. Never `kill -9` in a loop: it cannot end a process in D.",
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  return {};
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
  text_on,
};
// clang-format on

}  // namespace plegscope
