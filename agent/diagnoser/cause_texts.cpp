#include "diagnoser/cause_texts.h"

#include "diagnoser/prose.h"

namespace plegscope {
namespace {

// clang-format off
const CauseText kTexts[] = {
  {CauseId::kRuntimeUnavailable,
   "`{crictl} info` and `ls -l {socket}`; `systemctl status {service}` and `journalctl -u {service} --since -15min` "
   "show why it stopped or restarts.",
   "starting or restarting the runtime service once its logs show the cause (disk full, bad config after an "
   "upgrade, OOM kill); make sure the kubelet's --container-runtime-endpoint names the same socket.",
   "reboot the node for this: running containers survive a runtime restart."},
  {CauseId::kRuntimeHung,
   "`timeout 10 {crictl} ps -a` hangs too; capture the runtime's goroutine dump (`kill -USR1 $(pidof {service})`: "
   "containerd writes it to its journal, CRI-O to /tmp/crio-goroutine-stacks-*.log) and look for calls stuck on a "
   "shim, a mount or storage; `dmesg | grep -i 'blocked for more'` shows processes stuck in D state.",
   "restarting the runtime service (`systemctl restart {service}`, running containers keep running) after saving "
   "the dump, and fixing what it was blocked on (a wedged shim: kill that shim; a hung NFS/iSCSI mount; a full or "
   "failing disk). If it hangs again, cordon and drain the node by hand.",
   "reboot nodes automatically."},
  {CauseId::kRuntimeSlow,
   "`time {crictl} ps -a` and `time {crictl} pods` (a healthy runtime lists a thousand containers in well under a "
   "second); `iostat -x 1` on the disk holding /var/lib/{service}; the runtime's logs for slow operations.",
   "moving the runtime's state to a faster, less contended disk, upgrading the runtime (list paths have had "
   "lock-contention fixes), and relieving node pressure if the node_pressure cause also shows.",
   ""},
  {CauseId::kMessageTooLarge,
   "`{crictl} ps -a | wc -l` and `{crictl} ps -a -o json | wc -c` (the size of the list answer); "
   "`{crictl} inspect <id>` on a few containers shows oversized labels or annotations.",
   "removing exited containers (`{crictl} ps -a --state exited -q | xargs -r {crictl} rm`), fixing the "
   "crash-looping pods that pile them up, tightening the kubelet's container GC, and trimming huge annotations.",
   "remove running containers or sandboxes, or raise the message limit on one side only."},
  {CauseId::kTooManyContainers,
   "`{crictl} ps -a | wc -l`, `{crictl} ps -a --state exited | wc -l` and `{crictl} pods | wc -l`; "
   "`{crictl} ps -a --state exited` shows which pods leave them behind.",
   "fixing the crash-looping workloads, removing exited containers (`{crictl} ps -a --state exited -q | xargs -r "
   "{crictl} rm`), tightening the kubelet's container GC and keeping maxPods realistic for the node.",
   "delete pods through the API server to make room."},
  {CauseId::kEventStorm,
   "the top pods in this report, `kubectl get pods -A --field-selector spec.nodeName={node} | grep -Ev "
   "'Running|Completed'`, `{crictl} ps -a --state exited | head -20` (crash loops), `kubectl get events -A "
   "--sort-by=.lastTimestamp | tail`.",
   "fixing or scaling down the crash-looping workload (`kubectl rollout undo`), slowing a mass rollout "
   "(maxSurge/maxUnavailable), spreading the pods over more nodes.",
   "raise --event-channel-capacity to make it go away: it only hides discards, relists stay as slow."},
  {CauseId::kPodStatusSlow,
   "`time {crictl} inspectp <pod-id>` and `time {crictl} inspect <container-id>` on the top pods in this report; "
   "`journalctl -u {service} | grep -iE 'cni|teardown|StopPodSandbox'` for slow network teardown.",
   "fixing the CNI plugin or IPAM that blocks sandbox status (stale netns, unreachable IPAM store), moving "
   "container state to a faster disk, upgrading the runtime.",
   ""},
  {CauseId::kReinspectBacklog,
   "`{crictl} pods`, then `{crictl} inspectp <id>` and `{crictl} inspect <id>` for each pod's sandbox and "
   "containers: the one that errors is the culprit (often a container whose shim died or a sandbox with a missing "
   "netns).",
   "deleting that pod (`kubectl delete pod --grace-period=0 --force` once you know its workload tolerates it) or "
   "removing the broken container with crictl; restarting the runtime if its state for them is corrupt.",
   ""},
  {CauseId::kNodePressure,
   "`cat /proc/pressure/{cpu,io,memory}`, `iostat -x 1` (await, %util), `top -o %CPU`, `ps -eLf | wc -l` against "
   "`cat /proc/sys/kernel/pid_max`; `kubectl top pods -A --sort-by=cpu` for the noisy workload.",
   "throttling or moving the pod that saturates the disk or CPU, setting requests/limits (and pids limits: the "
   "kubelet's --pod-max-pids), reserving resources for system daemons (--system-reserved, --kube-reserved); drain "
   "the node by hand if it stays saturated.",
   "reboot the node automatically: find the workload first."},
};
// clang-format on

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

}  // namespace

const CauseText& cause_text(CauseId id) {
  for (const auto& t : kTexts)
    if (t.id == id) return t;
  return kTexts[0];
}

std::string remedy(CauseId id, const Snapshot& s) {
  const CauseText& t = cause_text(id);
  std::string out = std::string("Confirm: ") + t.confirm + " Usually fixed by: " + t.fix;
  if (*t.never) out += std::string(" Do not ") + t.never;
  const std::string socket = s.endpoint.rfind("unix://", 0) == 0 ? s.endpoint.substr(7) : s.endpoint;
  replace_all(out, "{crictl}", crictl(s));
  replace_all(out, "{socket}", socket.empty() ? "<socket>" : socket);
  replace_all(out, "{service}", runtime_service(s));
  replace_all(out, "{node}", s.node.empty() ? "<node>" : s.node);
  return out;
}

}  // namespace plegscope
