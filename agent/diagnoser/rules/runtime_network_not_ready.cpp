// runtime_network_not_ready: the runtime answers Status with NetworkReady
// false, or its readiness keeps changing. The kubelet's Ready condition
// carries "container runtime network not ready: ..." and the node is
// NotReady while it lasts. Two forms by what the runtime's message says:
// no network configuration loaded (kFound: "cni plugin not initialized",
// "no CNI configuration file"), or a configured plugin that answers CNI
// STATUS unhealthy (kPluginUnhealthy, CNI 1.1.0: "Network plugin returns
// error: <the plugin's words>"), whose plugin the runtime's message does not
// name and the CNI configuration the runtime loaded does.
#include "cri/operation_names.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_network_not_ready.h"

namespace plegscope {
namespace {

// The plugin's side: its own words, and the network the runtime loaded.
void name_the_plugin(Finding& f, const RuntimeStatusEvidence& e) {
  RuntimeNetworkNotReadyDetails& d = f.details<RuntimeNetworkNotReadyDetails>();
  f.form = Form::kPluginUnhealthy;
  d.cni_plugin_error = e.cni_plugin_error;
  if (!e.cni) return;
  d.cni_conf_dir = e.cni->dir;
  if (!e.cni->error.empty()) {
    d.cni_read_error = e.cni->error;
  } else if (!e.cni->network) {
    d.cni_no_network = true;
  } else {
    const CniNetwork& n = *e.cni->network;
    d.cni_file = n.file;
    d.cni_network = n.name;
    d.cni_plugins = n.plugins;
    d.cni_plugin = e.cni_plugin;
  }
}

}  // namespace

std::optional<Finding> judge_runtime_network_not_ready(const Context& c) {
  const RuntimeStatusEvidence& e = c.s.runtime_status;
  if (!e.enabled || !e.answered) return std::nullopt;
  // Flapping: at least three changes over the recent calls (a minute). One
  // outage and its recovery are two: a network that went down once and is
  // back is all clear, not flapping.
  const bool flapping = e.transitions_recent >= 3;
  const bool not_ready = e.consecutive_failures == 0 && !e.network_not_ready.empty();
  if (!not_ready && !flapping) return std::nullopt;
  Finding f = not_ready ? make_finding(CauseId::kRuntimeNetworkNotReady, Severity::kCritical, flapping ? 0.88 : 0.9,
                                       flapping ? Form::kFlapping : Form::kFound)
                        : make_finding(CauseId::kRuntimeNetworkNotReady, Severity::kWarning, 0.6, Form::kFlapping);
  RuntimeNetworkNotReadyDetails& d = f.details<RuntimeNetworkNotReadyDetails>();
  f.op = op::kStatus;
  d.condition = reported_condition(e.network_ready);
  d.transitions = e.transitions_recent;
  d.calls = e.recent_calls;
  d.failed_last = not_ready;
  if (c.s.kubelet.ready_message)
    d.ready_message_agrees = c.s.kubelet.ready_says.network_not_ready;
  f.evidence.push_back({"runtime_condition{NetworkReady}", not_ready ? 0.0 : 1.0, 1});
  if (flapping)
    f.evidence.push_back({"runtime_readiness_changes_recent", static_cast<double>(e.transitions_recent), 3});
  if (not_ready && e.network_message == NetworkMessageKind::kPluginError) {
    name_the_plugin(f, e);
    const std::string& named = !d.cni_plugin.empty() ? d.cni_plugin : d.cni_network;
    f.evidence.push_back({"cni_status_ok{" + (named.empty() ? std::string("network") : named) + "}", 0, 1});
  }
  return f;
}

}  // namespace plegscope
