// The words of nri_stall: an NRI plugin answers the runtime's events late or not at all.
#include "diagnoser/rules/nri_stall.h"
#include "report/wording.h"

namespace plegscope {

namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const NriStallDetails& d = f.details<NriStallDetails>();
  CauseWords w;
  std::string counted;
  if (d.timeouts > 0)
    counted = text::count(d.timeouts, "call", "calls") + " given up at the runtime's NRI request timeout " +
              "(NRI then disconnects the plugin)";
  if (d.calls > 0)
    counted += (counted.empty() ? "" : ", ") + text::count(d.calls, "call", "calls") + " slower than " +
               text::elapsed(d.threshold_seconds);
  w.reason = "NRI plugin " + d.plugin + " held the runtime's " + d.method + " events: " + counted + ", " +
             text::elapsed(f.seconds) + " waited on it in all over the last " + text::elapsed(d.window_seconds);
  w.action = "fix or restart NRI plugin " + d.plugin + "; the runtime is not hung";
  w.summary = "An NRI plugin stalls pod creation and teardown: " + w.reason +
              "; the PLEG's list calls do not wait on it.";
  return w;
}

// On CRI-O: its own log, none of containerd's metric names. plegscope reads
// NRI's figures from containerd's page only, so on CRI-O these words stand
// for an operator who finds the plugin by hand.
// clang-format off
constexpr RuntimeText kOnCrio = {
  "`timeout 20 journalctl -u {service} --since -15m | grep -iE 'nri|plugin'` names the plugin the runtime "
  "gave up on. `{crictl} pods -q` and `{crictl} ps -a -q` answer at once: the PLEG's lists do not wait on "
  "NRI. The name is the index and name the plugin registered with (`10-stall`): a binary of that name in "
  "`/opt/nri/plugins`, or the pod on the node that mounts `/var/run/nri/nri.sock`.",
  nullptr,
  nullptr,
};
// clang-format on

RuntimeText text_on(const RuntimeModel& runtime) {
  if (runtime.family == RuntimeFamily::kCrio) return kOnCrio;
  return {};
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## nri_stall once the placeholders are filled with runbook_command_names().
// Edit both or cause_texts_test fails.
// clang-format off
const CauseWording nri_stall_wording = {
  {"`timeout 20 journalctl -u {service} --since -15m | grep -iE 'nri|plugin'` shows `closing plugin <name>, "
   "failed to handle <Event> request: context deadline exceeded` and `connection to plugin \"<name>\" closed`; "
   "the runtime's metrics page carries the same name in `containerd_nri_plugin_invocations_total{error="
   "\"deadline_exceeded\"}` and `containerd_nri_plugin_latency_seconds`. `{crictl} pods -q` and `{crictl} ps "
   "-a -q` answer at once: the PLEG's lists do not wait on NRI. The name is the index and name the plugin "
   "registered with (`10-stall`): a binary of that name in `/opt/nri/plugins`, or the pod on the node that "
   "mounts `/var/run/nri/nri.sock`.",
   "Fix or restart the plugin named (its pod on the node {node}, or the binary in `/opt/nri/plugins`). After "
   "its timeout NRI has disconnected it, so pods start without its adjustments until it registers again; a "
   "plugin that reconnects and stalls again delays every pod start and stop on the node by the timeout. To "
   "take it out of the path meanwhile, stop that plugin, not the runtime.",
   "Restart the runtime or reboot the node for this: the PLEG's lists and the runtime's Status do not wait "
   "on NRI, and a restarted runtime calls the same plugin again. Do not raise `plugin_request_timeout` to "
   "hide it: every call that reaches the plugin then waits that long."},
  words_of,
  text_on,
};
// clang-format on

}  // namespace plegscope
