// The words of runtime_unavailable: the CRI socket is missing, refuses, or answers UNAVAILABLE.
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f) {
  CauseWords w;
  switch (f.form) {
    case Form::kSocketMissing:
      w.reason = "the CRI socket " + f.endpoint + " does not exist";
      w.action = "start the runtime service, or fix the endpoint";
      break;
    case Form::kDown:
      w.reason = "the runtime at " + f.endpoint + " answers UNAVAILABLE (" +
                 text::count(f.relists, "relist", "relists") + " in a row failed)";
      w.action = "check why the runtime service is down";
      break;
    default:  // Form::kFlapping
      w.reason = "the runtime answered UNAVAILABLE in " + text::count(f.relists, "relist", "relists") +
                 " of the last " + text::elapsed(f.window_seconds) +
                 (f.failed_last ? ", with good relists between them" : ", not in the last one");
      w.action = "check the runtime's logs for restarts";
      break;
  }
  w.summary = "The container runtime is unreachable: " + w.reason + ".";
  return w;
}

}  // namespace

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
};
// clang-format on

}  // namespace plegscope
