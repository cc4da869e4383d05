// The words of runtime_not_ready: the runtime answers Status with RuntimeReady false.
#include "diagnoser/rules/runtime_not_ready.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const RuntimeNotReadyDetails& d = f.details<RuntimeNotReadyDetails>();
  CauseWords w;
  w.reason = d.condition.missing ? "the runtime's Status answer has no RuntimeReady condition"
                                 : "the runtime says RuntimeReady=false (reason " + d.condition.reason +
                                       (d.condition.message.empty() ? "" : ": " + d.condition.message) + ")";
  w.action = "read the runtime's reason and its log; fix what it names";
  w.summary = "The runtime says it is not ready: " + w.reason +
              "; the kubelet's Ready condition says \"container runtime not ready\"";
  if (d.status_down_in_seconds && *d.status_down_in_seconds <= 0)
    w.summary += " and \"container runtime is down\"";
  else if (d.status_down_in_seconds)
    w.summary += ", and \"container runtime is down\" in " + text::elapsed(*d.status_down_in_seconds);
  w.summary += ".";
  if (d.ready_message_agrees) w.summary += " The kubelet's Ready message says so.";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## runtime_not_ready once the placeholders are filled with
// runbook_command_names(). Edit both or cause_texts_test fails.
// clang-format off
const CauseWording runtime_not_ready_wording = {
  {"`{crictl} info` shows `RuntimeReady` false with its reason and message; `timeout 20 journalctl -u "
   "{service} --since -15m` shows why the runtime considers itself not ready.",
   "Follow the runtime's reason: a runtime that is still starting becomes ready by itself; a broken "
   "runtime configuration or a missing runtime binary (runc) is fixed on the node, then the runtime "
   "restarted once (`systemctl restart {service}`).",
   "Restart the kubelet for this: it reads the same answer. Do not reboot before reading the runtime's "
   "reason."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
