// The words of runtime_network_not_ready: NetworkReady false in the runtime's Status, or readiness flapping.
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  CauseWords w;
  const std::string condition =
      f.condition_missing ? "the runtime's Status answer has no NetworkReady condition"
                          : "the runtime says NetworkReady=false (reason " + f.condition_reason +
                                (f.condition_message.empty() ? "" : ": " + f.condition_message) + ")";
  if (f.form == Form::kFlapping) {
    w.reason = "the runtime's readiness changed " + text::count(f.transitions, "time", "times") + " over its last " +
               text::count(f.calls, "Status answer", "Status answers");
    if (f.failed_last) w.reason += ", and now " + condition;
  } else {
    w.reason = condition;
  }
  w.action = "get the node's CNI agent running so that it writes its configuration; the runtime reloads it";
  w.summary = (f.form == Form::kFlapping ? "The runtime's network readiness flaps: " : "The node has no pod network: ") +
              w.reason + (f.failed_last ? "; the kubelet's Ready condition says \"container runtime network not "
                                          "ready\" and no new pod gets a network."
                                        : ".");
  if (f.ready_message_agrees) w.summary += " The kubelet's Ready message says so.";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## runtime_network_not_ready once the placeholders are filled with
// runbook_command_names(). Edit both or cause_texts_test fails.
// clang-format off
const CauseWording runtime_network_not_ready_wording = {
  {"`{crictl} info` shows `NetworkReady` false with the runtime's reason and message; `ls "
   "/etc/cni/net.d` is empty or holds a configuration the runtime cannot load; the CNI agent pod of the "
   "node ({node}) is not running or not ready.",
   "Get the CNI agent running on the node (its DaemonSet pod, which writes the configuration to "
   "`/etc/cni/net.d`), or fix the configuration file it wrote; the runtime reloads it by itself and the "
   "node turns Ready within seconds.",
   "Restart the runtime for this, and do not reboot: the configuration is still missing afterwards. Do "
   "not copy another node's CNI configuration by hand."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
