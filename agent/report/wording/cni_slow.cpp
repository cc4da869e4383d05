// The words of cni_slow: network setup or teardown slow, beside slow sandbox calls.
#include "report/wording.h"

namespace plegscope {

namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  CauseWords w;
  if (!f.op.empty())
    w.reason = "network " + f.op + " takes " + text::elapsed(f.seconds) + " (p99, threshold " +
               text::elapsed(f.threshold_seconds) + ")";
  else
    w.reason = f.method + " has been in flight for " + text::elapsed(f.seconds) + " (threshold " +
               text::elapsed(f.threshold_seconds) + ")";
  if (!f.op.empty() && !f.method.empty() && f.call_in_flight) w.reason += " and " + f.method + " is in flight";
  if (f.status_call_seconds > 0) w.reason += ", with PodSandboxStatus at " + text::elapsed(f.status_call_seconds);
  if (f.list_seconds > 0)
    w.reason += (f.status_call_seconds > 0 ? " and ListPodSandbox at " : ", with ListPodSandbox at ") +
                text::elapsed(f.list_seconds);
  w.action = "look at the CNI plugin's log and the IP allocator; the runtime holds the sandbox's lock meanwhile";
  w.summary = "Network setup or teardown is slow: " + w.reason + ".";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## cni_slow once the placeholders are filled with runbook_command_names().
// Edit both or cause_texts_test fails.
// clang-format off
const CauseWording cni_slow_wording = {
  {"`timeout 20 journalctl -u {service} --since -15m | grep -iE 'cni|network'` shows slow or failing setup and "
   "teardown; `ls /etc/cni/net.d` names the plugin, whose own log (e.g. `/var/log/calico/cni/cni.log`, the "
   "aws-node or cilium-agent pod's log) shows where the time goes; `time {crictl} inspectp <pod-id>` of a pod "
   "being created or deleted is slow.",
   "Fix the network plugin: an IP pool exhausted or an IPAM datastore slow to answer, the CNI agent pod "
   "restarting or overloaded, an API server slow for the plugin's calls. Restart the CNI agent pod on the node "
   "({node}) if it is stuck; new pods wait meanwhile, running pods keep their network.",
   "Restart the runtime for this: sandboxes in setup or teardown are left half-configured and the slow plugin "
   "is called again. Do not delete the CNI configuration with pods running."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
