// The words of container_lock_stall: another client's mutating call, stuck inside the runtime, holds a container's lock.
#include "diagnoser/rules/container_lock_stall.h"
#include "report/wording.h"

namespace plegscope {

namespace {

CauseWords words_of(const Finding& f, const RuntimeModel& runtime) {
  const ContainerLockStallDetails& d = f.details<ContainerLockStallDetails>();
  CauseWords w;
  w.reason = d.method + " has been in flight inside the runtime for " + text::elapsed(f.seconds) +
             " (hang threshold " + text::elapsed(d.threshold_seconds) + ") with no call of it completing";
  w.action = "find the container that " + d.method + " is stuck on and its " + helper_name(runtime) +
             "; the runtime itself is not hung";
  w.summary = "Another client's " + d.method + " is stuck inside the runtime: " + w.reason + ", and it holds the lock " +
              (f.op.empty() ? std::string("the agent's calls wait") : cri_method(f.op) + " waits") + " for" +
              (d.call_in_flight ? ", so " + cri_method(f.op) + " hangs." : ", so the agent's calls are slow.");
  return w;
}

// What a runtime's reader needs said otherwise. The runbook's words above
// name both runtimes' ways; these name only the node's.
// clang-format off
// On containerd.
constexpr RuntimeText kOnContainerd = {
  nullptr,
  "Capture the runtime's goroutine dump (`timeout 10 systemctl kill --kill-who=main -s USR1 "
  "{service}`): it shows the call holding the container's lock. Then unblock that one container: kill "
  "its shim (`kill -KILL <shim-pid>`: containerd's shim serves the whole pod and is found by the pod's "
  "sandbox id, as in the runbook's \"On the node\") or fix what its unmount waits on; the lock is "
  "released and the lists answer again. Stop the client that keeps sending the call (pause the "
  "autoscaler) until then. Restart the runtime only if the shim cannot be killed.",
  nullptr,
};
// On CRI-O.
constexpr RuntimeText kOnCrio = {
  "The runtime's metrics page shows the method in flight and not completing (CRI-O records a call only "
  "once it returns, so its page shows the method's `container_runtime_crio_operations_total` no longer "
  "growing, never the call in flight). `{crictl} inspect <container-id>` of that container fails after "
  "10 s with `DeadlineExceeded` while `{crictl} ps -a -q` answers (CRI-O's lists take no container "
  "lock); `timeout 20 journalctl -u {service} --since -15m` names the container of the stuck call "
  "(UpdateContainerResources from a vertical autoscaler, or StopContainer of a container whose conmon "
  "is unmounting). Look for its conmon or `runc` in D state: `threads D` (the runbook's `/proc` "
  "reader, \"On the node\"; not `ps`, which reads every process's cmdline and blocks behind a process in "
  "D).",
  "Capture the runtime's goroutine dump (`timeout 10 systemctl kill --kill-who=main -s USR1 "
  "{service}`): it shows the call holding the container's lock. Then unblock that one container: look "
  "at its conmon (one per container, found by `-c <container-id>` on its command line, its pod named "
  "by `-n`; `kill -KILL <conmon-pid>` ends what it waits on) or fix what its unmount waits on; that "
  "container's status calls answer again. Stop the client that keeps sending the call (pause the "
  "autoscaler) until then. Restart the runtime only if the conmon cannot be killed.",
  "Treat it as runtime_hung and restart the runtime first: the stuck conmon survives the restart and "
  "the next list blocks on the same lock. Never reboot automatically.",
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  if (runtime.family == RuntimeFamily::kContainerd) return kOnContainerd;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## container_lock_stall once the placeholders are filled with
// runbook_command_names(). Edit both or cause_texts_test fails.
// clang-format off
const CauseWording container_lock_stall_wording = {
  {"The runtime's metrics page shows the method in flight and not completing (containerd: "
   "`grpc_server_started_total` minus `grpc_server_handled_total` for that `grpc_method`). `{crictl} ps -a -q` "
   "fails after 10 s with `DeadlineExceeded` while `{crictl} pods -q` answers; `timeout 20 journalctl -u "
   "{service} --since -15m` names the container of the stuck call (UpdateContainerResources from a vertical "
   "autoscaler, or StopContainer of a container whose shim is unmounting). Look for its shim or `runc` in D "
   "state: `threads D` (the runbook's `/proc` reader, \"On the node\"; not `ps`, which reads every process's "
   "cmdline and blocks behind a process in D).",
   "Capture the runtime's goroutine dump (`timeout 10 systemctl kill --kill-who=main -s USR1 {service}`): it "
   "shows the call holding the container's lock. Then unblock that one container: kill its shim (`kill -KILL "
   "<shim-pid>`: containerd's shim serves the whole pod and is found by the pod's sandbox id, as in the "
   "runbook's \"On the node\"; on CRI-O the container's `conmon`) or fix what its unmount waits on; the lock is "
   "released and the lists answer again. Stop the client that keeps sending the call (pause the autoscaler) "
   "until then. Restart the runtime only if the shim cannot be killed.",
   "Treat it as runtime_hung and restart the runtime first: the stuck shim survives the restart and the next "
   "list blocks on the same lock. Never reboot automatically."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
