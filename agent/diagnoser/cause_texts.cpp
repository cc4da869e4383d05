#include "diagnoser/cause_texts.h"

#include "diagnoser/prose.h"

namespace plegscope {
namespace {

// Each text is, word for word, a paragraph of the cause's section in
// docs/runbook.md once the placeholders are filled with
// runbook_command_names(). Edit both or the unit test fails.
// clang-format off
const CauseText kTexts[] = {
  {CauseId::kRuntimeUnavailable,
   "`{crictl} info` fails; `ls -l {socket}` shows whether the socket exists; `systemctl status {service}` and "
   "`journalctl -u {service} --since -30min` show why the runtime stopped or keeps restarting (a panic, a bad "
   "config); `dmesg | grep -iE 'oom|killed process'` shows an OOM kill.",
   "Start the runtime (`systemctl start {service}`) once its log shows why it exited: a full disk under "
   "`{state_dir}`, a bad config after an upgrade, an OOM kill. Check that the kubelet's "
   "`--container-runtime-endpoint` names the same socket. plegscope reconnects within seconds of the socket "
   "coming back.",
   "Reboot the node before reading the runtime's log: running containers survive a runtime restart. Do not "
   "reinstall the runtime with pods running."},
  {CauseId::kRuntimeHung,
   "`timeout 10 {crictl} ps -a` hangs too; `{crictl} inspect <container-id>` of a recently changed container may "
   "hang on that one container. Look for processes stuck in D state: `ps -eo pid,stat,wchan:32,cmd | awk '$2 ~ "
   "/D/'` (a shim or `runc` stuck in the kernel) and `dmesg | grep -i 'blocked for more'`.",
   "Capture evidence first: the runtime's goroutine dump (`kill -USR1 $(pidof {service})`; containerd writes it "
   "to its journal, CRI-O to `/tmp/crio-goroutine-stacks-*.log`) and the D-state processes. Then restart the "
   "runtime once (`systemctl restart {service}`): running containers keep running. A wedged shim: kill that "
   "shim. Processes stuck in D state on storage: fix the storage first (unmount the dead NFS mount, replace the "
   "failing disk), or the restarted runtime hangs again. If it does, cordon and drain the node by hand.",
   "Restart the runtime in a loop, and never reboot automatically: with a process stuck in D state the shutdown "
   "may hang too, and the dump is lost."},
  {CauseId::kRuntimeSlow,
   "`time {crictl} ps -a -q | wc -l` and `time {crictl} pods -q | wc -l`: seconds for a few hundred containers "
   "is slow (a healthy runtime lists a thousand in well under a second). `iostat -x 1` on the disk holding "
   "`{state_dir}`, IO pressure in `/proc/pressure/io`, and the runtime's log for slow operations.",
   "Give the runtime what it lacks: faster or less contended storage for `{state_dir}`, CPU reserved for the "
   "runtime and the kubelet (`systemReserved`), fewer co-located IO-heavy workloads, a runtime upgrade (list "
   "paths have had lock-contention fixes). If node_pressure shows too, relieve that first.",
   "Raise the kubelet's relist threshold to hide it: events stay as late."},
  {CauseId::kMessageTooLarge,
   "The kubelet's log says `grpc: received message larger than max`, and "
   "`pleg_runtime_list_response_bytes` (the last answer that still fit) is near 16 MiB. Count what the list "
   "returns: `{crictl} ps -a -q | wc -l` and `{crictl} ps -a --state exited -q | wc -l`; `{crictl} inspect "
   "<container-id>` on a few containers shows oversized labels or annotations.",
   "Remove exited containers: `{crictl} ps -a --state exited -q | xargs -r {crictl} rm` (exited containers "
   "only). Then fix what creates them (a CronJob without `successfulJobsHistoryLimit`, a crash loop), tighten "
   "the kubelet's container GC (`maxPerPodContainer`, `maxContainers`) and trim huge labels and annotations.",
   "Remove running containers or sandboxes. Do not raise the message limit on one side only: the kubelet and "
   "the runtime must agree."},
  {CauseId::kTooManyContainers,
   "`{crictl} ps -a -q | wc -l` against `{crictl} ps -q | wc -l` (all containers against running ones) and "
   "`{crictl} pods -q | wc -l`; `{crictl} ps -a --state exited` shows which pods leave exited containers "
   "behind.",
   "Fix the crash-looping workloads, remove exited containers (`{crictl} ps -a --state exited -q | xargs -r "
   "{crictl} rm`), tighten the kubelet's container GC (`maxPerPodContainer`, `maxContainers`), and lower "
   "`maxPods` on the node if running containers alone make relists slow.",
   "Delete pods through the API server to make room: the exited containers are what costs."},
  {CauseId::kEventStorm,
   "The top pods in this report and `/debug/events`; `kubectl get pods -A --field-selector "
   "spec.nodeName={node} | grep -Ev 'Running|Completed'`; `{crictl} ps -a --state exited | head -20` for crash "
   "loops; `kubectl get events -A --sort-by=.lastTimestamp | tail`.",
   "Stop the crash loop (fix or scale down the workload, `kubectl rollout undo`), slow the rollout "
   "(`maxSurge`, `maxUnavailable`), drain in smaller batches, spread the pods over more nodes.",
   "Restart the kubelet: the storm goes on and the kubelet re-inspects every pod at start. Do not raise "
   "`--event-channel-capacity` to make it go away: that hides the discards, relists stay as slow."},
  {CauseId::kPodStatusSlow,
   "`time {crictl} inspectp <pod-id>` and `time {crictl} inspect <container-id>` on the top pods in this "
   "report; `journalctl -u {service} | grep -iE 'cni|teardown|StopPodSandbox'` for slow network teardown; the "
   "CNI plugin's log.",
   "Fix the slow component: the CNI plugin or IPAM that blocks sandbox status (a stale netns, an unreachable "
   "IPAM store), the disk holding container logs and state, a runtime handler with slow status (gVisor, Kata); "
   "upgrade the runtime.",
   "Delete the pods blindly: find the handler or plugin first."},
  {CauseId::kReinspectBacklog,
   "`{crictl} pods`, then `{crictl} inspectp <pod-id>` and `{crictl} inspect <container-id>` for each pod's "
   "sandbox and containers: the one that errors is the culprit (often a sandbox with a missing netns, or a "
   "container whose shim died). The runtime's log has errors for it.",
   "Once the pod is gone from the API server, remove its broken sandbox (`{crictl} stopp <pod-id>`, then "
   "`{crictl} rmp <pod-id>`) or container (`{crictl} rm <container-id>`), and fix what breaks them (often CNI "
   "teardown). Restart the runtime if its state for them is corrupt.",
   "Remove sandboxes of pods that still exist in the API server."},
  {CauseId::kNodePressure,
   "`cat /proc/pressure/cpu /proc/pressure/io /proc/pressure/memory`, `iostat -x 1` (await, %util), `top`, "
   "`iotop`; `ps -e --no-headers | wc -l` against `cat /proc/sys/kernel/pid_max`; `kubectl top pods -A "
   "--sort-by=cpu` for the noisy workload.",
   "Relieve the pressure: throttle or move the workload that saturates the disk or CPU, set pod requests and "
   "limits (and `podPidsLimit` against PID leaks), reserve CPU and memory for system daemons "
   "(`systemReserved`, `kubeReserved`). Drain the node by hand if it stays saturated.",
   "Reboot to clear the pressure: it returns with the workload. Find the workload first."},
};
// clang-format on

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

std::string state_dir(const std::string& service) {
  if (service == "crio") return "/var/lib/containers";
  if (service == "cri-docker") return "/var/lib/docker";
  return "/var/lib/" + service;
}

}  // namespace

const CauseText& cause_text(CauseId id) {
  for (const auto& t : kTexts)
    if (t.id == id) return t;
  return kTexts[0];
}

CommandNames command_names(const Snapshot& s) {
  CommandNames names;
  names.crictl = crictl(s);
  names.socket = s.endpoint.rfind("unix://", 0) == 0 ? s.endpoint.substr(7) : s.endpoint;
  if (names.socket.empty()) names.socket = "<socket>";
  names.service = runtime_service(s);
  names.state_dir = state_dir(names.service);
  names.node = s.node.empty() ? "<node>" : s.node;
  return names;
}

CommandNames runbook_command_names() {
  return {"crictl", "/run/containerd/containerd.sock", "containerd", "/var/lib/containerd",
          "$NODE"};
}

std::string fill_placeholders(const std::string& text, const CommandNames& names) {
  std::string out = text;
  replace_all(out, "{crictl}", names.crictl);
  replace_all(out, "{socket}", names.socket);
  replace_all(out, "{service}", names.service);
  replace_all(out, "{state_dir}", names.state_dir);
  replace_all(out, "{node}", names.node);
  return out;
}

std::string remedy(CauseId id, const Snapshot& s) {
  const CauseText& t = cause_text(id);
  return fill_placeholders(
      std::string("Confirm: ") + t.confirm + " Fix: " + t.fix + " Do not: " + t.never,
      command_names(s));
}

}  // namespace plegscope
