// The words of runtime_network_not_ready: NetworkReady false in the runtime's Status (no network configuration,
// or a configured plugin that answers CNI STATUS unhealthy), or readiness flapping.
#include "diagnoser/rules/runtime_network_not_ready.h"
#include "report/wording.h"

namespace plegscope {
namespace {

// "calico, then bandwidth"
std::string chain(const std::vector<std::string>& plugins) {
  std::string out;
  for (const auto& p : plugins) out += (out.empty() ? "" : ", then ") + p;
  return out;
}

// A configured plugin answers CNI STATUS unhealthy: named from the network
// the runtime loaded, since the runtime's message carries only the plugin's
// own words.
CauseWords plugin_words(const Finding& f) {
  const RuntimeNetworkNotReadyDetails& d = f.details<RuntimeNetworkNotReadyDetails>();
  CauseWords w;
  std::string who;
  if (!d.cni_plugin.empty()) {
    who = "the CNI plugin " + d.cni_plugin + " of the network " + d.cni_network + " (" + d.cni_conf_dir + "/" +
          d.cni_file + ")";
  } else if (!d.cni_network.empty()) {
    who = "a CNI plugin of the network " + d.cni_network + " (" + d.cni_conf_dir + "/" + d.cni_file +
          ": " + chain(d.cni_plugins) + ")";
  } else {
    who = "the node's configured CNI plugin";
  }
  w.reason = who + " answers CNI STATUS unhealthy: \"" + d.cni_plugin_error + "\"";
  if (d.transitions >= 3)
    w.reason += "; readiness changed " + text::count(d.transitions, "time", "times") + " over the last " +
                text::count(d.calls, "Status answer", "Status answers");
  const std::string plugin = d.cni_plugin.empty() ? "the network plugin" : d.cni_plugin;
  w.action = "make " + plugin + "'s node agent healthy (its DaemonSet pod on this node, and what that agent waits "
             "for); the runtime asks STATUS again by itself and the network turns ready once the plugin answers: "
             "the runtime needs nothing";
  w.summary = "The node's pod network plugin reports itself unavailable: " + w.reason +
              "; the runtime says NetworkReady=false (reason " + d.condition.reason +
              "), the kubelet's Ready condition says \"container runtime network not ready\" and no new pod gets "
              "a network. The runtime is not at fault.";
  if (!d.cni_read_error.empty() || d.cni_no_network)
    w.summary += " The agent could not name the plugin: " +
                 (d.cni_no_network ? "no loadable network configuration in " + d.cni_conf_dir : d.cni_read_error) +
                 " (point --cni-conf-dir at the runtime's CNI configuration directory).";
  if (d.ready_message_agrees) w.summary += " The kubelet's Ready message says so.";
  return w;
}

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const RuntimeNetworkNotReadyDetails& d = f.details<RuntimeNetworkNotReadyDetails>();
  if (f.form == Form::kPluginUnhealthy) return plugin_words(f);
  CauseWords w;
  const std::string condition =
      d.condition.missing ? "the runtime's Status answer has no NetworkReady condition"
                          : "the runtime says NetworkReady=false (reason " + d.condition.reason +
                                (d.condition.message.empty() ? "" : ": " + d.condition.message) + ")";
  if (f.form == Form::kFlapping) {
    w.reason = "the runtime's readiness changed " + text::count(d.transitions, "time", "times") + " over its last " +
               text::count(d.calls, "Status answer", "Status answers");
    if (d.failed_last) w.reason += ", and now " + condition;
  } else {
    w.reason = condition;
  }
  w.action = "get the node's CNI agent running so that it writes its configuration; the runtime reloads it";
  w.summary = (f.form == Form::kFlapping ? "The runtime's network readiness flaps: " : "The node has no pod network: ") +
              w.reason + (d.failed_last ? "; the kubelet's Ready condition says \"container runtime network not "
                                          "ready\" and no new pod gets a network."
                                        : ".");
  if (d.ready_message_agrees) w.summary += " The kubelet's Ready message says so.";
  return w;
}

// On a node whose runtime is known, each its own words and its own way of
// asking STATUS again.
// clang-format off
constexpr RuntimeText kOnContainerd = {
  "`{crictl} info` shows `NetworkReady` false with the runtime's reason and message. With \"cni plugin not "
  "initialized\", `ls /etc/cni/net.d` is empty or holds a configuration the runtime cannot load, and the CNI agent "
  "pod of the node ({node}) is not running or not ready. With any other message after \"Network plugin returns "
  "error:\", a plugin of the first configuration in `/etc/cni/net.d` (by file name) answers CNI STATUS unhealthy "
  "(CNI 1.1.0 and later) in its own words: the report names that plugin; its agent pod on the node is not ready, "
  "or its log says what it waits for.",
  "No configuration: get the CNI agent running on the node (its DaemonSet pod, which writes the configuration to "
  "`/etc/cni/net.d`), or fix the configuration file it wrote; the runtime reloads it by itself and the node turns "
  "Ready within seconds. A plugin that answers STATUS unhealthy: make that plugin's node agent healthy (its "
  "DaemonSet pod on the node, and the datastore or API server it waits for); the runtime asks STATUS again at every "
  "Status call, so the node turns Ready once the plugin answers.",
  nullptr,
};
constexpr RuntimeText kOnCrio = {
  "`{crictl} info` shows `NetworkReady` false with the runtime's reason and message. With \"no CNI configuration "
  "file in …\", `ls /etc/cni/net.d` is empty or holds a configuration the runtime cannot load, and the CNI agent "
  "pod of the node ({node}) is not running or not ready. With any other message after \"Network plugin returns "
  "error:\", a plugin of the first configuration in `/etc/cni/net.d` (by file name) answers CNI STATUS unhealthy "
  "(CNI 1.1.0 and later) in its own words: the report names that plugin; its agent pod on the node is not ready, "
  "or its log says what it waits for.",
  "No configuration: get the CNI agent running on the node (its DaemonSet pod, which writes the configuration to "
  "`/etc/cni/net.d`), or fix the configuration file it wrote; the runtime reloads it by itself and the node turns "
  "Ready within seconds. A plugin that answers STATUS unhealthy: make that plugin's node agent healthy (its "
  "DaemonSet pod on the node, and the datastore or API server it waits for); the runtime asks STATUS again every "
  "5 s (every 500 ms until the first success after its start), so the node turns Ready once the plugin answers.",
  nullptr,
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  if (runtime.family == RuntimeFamily::kContainerd) return kOnContainerd;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## runtime_network_not_ready once the placeholders are filled with
// runbook_command_names(). Edit both or cause_texts_test fails.
// clang-format off
const CauseWording runtime_network_not_ready_wording = {
  {"`{crictl} info` shows `NetworkReady` false with the runtime's reason and message. With \"cni plugin not "
   "initialized\" (containerd) or \"no CNI configuration file in …\" (CRI-O), `ls /etc/cni/net.d` is empty or "
   "holds a configuration the runtime cannot load, and the CNI agent pod of the node ({node}) is not running or not "
   "ready. With any other message after \"Network plugin returns error:\", a plugin of the first configuration in "
   "`/etc/cni/net.d` (by file name) answers CNI STATUS unhealthy (CNI 1.1.0 and later) in its own words: the report "
   "names that plugin; its agent pod on the node is not ready, or its log says what it waits for.",
   "No configuration: get the CNI agent running on the node (its DaemonSet pod, which writes the configuration to "
   "`/etc/cni/net.d`), or fix the configuration file it wrote; the runtime reloads it by itself and the node turns "
   "Ready within seconds. A plugin that answers STATUS unhealthy: make that plugin's node agent healthy (its "
   "DaemonSet pod on the node, and the datastore or API server it waits for); containerd asks STATUS again at every "
   "Status call and CRI-O every 5 s, so the node turns Ready once the plugin answers.",
   "Restart the runtime for this, and do not reboot: the configuration is still missing, or the plugin still "
   "unhealthy, afterwards. Do not copy another node's CNI configuration by hand, and do not take a plugin out of the "
   "configuration to quiet its STATUS."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
