// The words of cni_slow: network setup or teardown slow, beside slow sandbox calls.
#include "diagnoser/rules/cni_slow.h"
#include "report/wording.h"

namespace plegscope {

namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const CniSlowDetails& d = f.details<CniSlowDetails>();
  CauseWords w;
  if (!f.op.empty())
    w.reason = "network " + f.op + " takes " + text::elapsed(f.seconds) + " (p99, threshold " +
               text::elapsed(d.threshold_seconds) + ")";
  else
    w.reason = d.method + " has been in flight for " + text::elapsed(f.seconds) + " (threshold " +
               text::elapsed(d.threshold_seconds) + ")";
  if (!f.op.empty() && !d.method.empty() && d.call_in_flight) w.reason += " and " + d.method + " is in flight";
  if (d.status_call_seconds > 0) w.reason += ", with PodSandboxStatus at " + text::elapsed(d.status_call_seconds);
  if (d.list_seconds > 0)
    w.reason += (d.status_call_seconds > 0 ? " and ListPodSandbox at " : ", with ListPodSandbox at ") +
                text::elapsed(d.list_seconds);
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
