// The words of runtime_unavailable: the CRI socket is missing, refuses, or answers UNAVAILABLE.
#include "diagnoser/rules/runtime_unavailable.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const RuntimeUnavailableDetails& d = f.details<RuntimeUnavailableDetails>();
  CauseWords w;
  switch (f.form) {
    case Form::kBlind:
      w.reason = "plegscope cannot see the runtime: " + blind_why(d.blind_reason, d.endpoint);
      w.action = blind_fix(d.blind_reason);
      w.summary = "plegscope is blind, not the node: " + blind_why(d.blind_reason, d.endpoint) +
                  ". The node is not judged until the agent can see the runtime.";
      return w;
    case Form::kSocketMissing:
      w.reason = "the CRI socket " + d.endpoint + " does not exist";
      w.action = "start the runtime service, or fix the endpoint";
      break;
    case Form::kDown:
      w.reason = "the runtime at " + d.endpoint + " answers UNAVAILABLE (" +
                 text::count(d.relists, "relist", "relists") + " in a row failed)";
      w.action = "check why the runtime service is down";
      break;
    default:  // Form::kFlapping
      w.reason = "the runtime answered UNAVAILABLE in " + text::count(d.relists, "relist", "relists") +
                 " of the last " + text::elapsed(d.window_seconds) +
                 (d.failed_last ? ", with good relists between them" : ", not in the last one");
      w.action = "check the runtime's logs for restarts";
      break;
  }
  w.summary = "The container runtime is unreachable: " + w.reason + ".";
  return w;
}

}  // namespace

std::string blind_why(const std::string& reason, const std::string& endpoint) {
  if (reason == "permission_denied") return "its connect() to " + endpoint + " is denied (permission denied)";
  if (reason == "no_such_socket") return "there is no socket at " + endpoint + " inside its container";
  if (reason == "not_a_socket") return endpoint + " is not a socket inside its container";
  if (reason == "not_cri")
    return "what answers at " + endpoint + " is not a CRI runtime (no CRI answer, or UNIMPLEMENTED to Version)";
  return "it cannot reach " + endpoint + " (" + reason + ")";
}

std::string blind_fix(const std::string& reason) {
  if (reason == "permission_denied")
    return "fix the agent: on an SELinux-enforcing node (RHEL, OpenShift, Bottlerocket) run it as spc_t (the "
           "deploy/components/selinux component); else check the socket's hostPath mount and that the agent runs "
           "as root";
  if (reason == "no_such_socket" || reason == "not_a_socket")
    return "fix the agent: mount the runtime's socket directory and set --container-runtime-endpoint to the "
           "kubelet's own (k3s and RKE2: unix:///run/k3s/containerd/containerd.sock; CRI-O: "
           "unix:///var/run/crio/crio.sock)";
  if (reason == "not_cri")
    return "fix the agent: set --container-runtime-endpoint to the socket the kubelet's "
           "--container-runtime-endpoint names (k3s and RKE2: unix:///run/k3s/containerd/containerd.sock), not "
           "another service's";
  return "fix the agent's access to the runtime socket";
}

// The runbook's paragraphs are, word for word, docs/runbook.md's ## runtime_unavailable
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording runtime_unavailable_wording = {
  {"`{crictl} info` fails; `ls -l {socket}` shows whether the socket exists; `timeout 10 systemctl status "
   "{service} --no-pager` and `timeout 20 journalctl -u {service} --since -30min` show why the runtime stopped "
   "or keeps restarting (a panic, a bad config); `timeout 10 dmesg | grep -iE 'oom|killed process'` shows an "
   "OOM kill.",
   "Start the runtime (`systemctl start {service}`) once its log shows why it exited: a full disk under "
   "`{state_dir}`, a bad config after an upgrade, an OOM kill. Check that the kubelet's "
   "`--container-runtime-endpoint` names the same socket. plegscope reconnects within seconds of the socket "
   "coming back.",
   "Reboot the node before reading the runtime's log: running containers survive a runtime restart. Do not "
   "reinstall the runtime with pods running."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
