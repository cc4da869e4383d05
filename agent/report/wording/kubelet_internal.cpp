// The words of kubelet_internal: the kubelet's own relist has stopped while the agent's relists are fast.
#include "diagnoser/rules/kubelet_internal.h"
#include "report/wording.h"

namespace plegscope {
namespace {

// "the kubelet's journal says \"PLEG is not healthy\" 3 times (first at ..., last at ...: \"...\")"
std::string journal_words(const Finding& f) {
  const KubeletInternalDetails& d = f.details<KubeletInternalDetails>();
  if (d.journal_marks == 0 || !d.journal_last_mark) return "";
  std::string words = "the kubelet's journal says \"PLEG is not healthy\" " +
                      text::count(d.journal_marks, "time", "times") + " (";
  if (d.journal_marks > 1 && d.journal_first_mark)
    words += "first at " + rfc3339(*d.journal_first_mark) + ", last at ";
  else
    words += "at ";
  words += rfc3339(*d.journal_last_mark);
  if (!d.journal_last_message.empty()) words += ": \"" + d.journal_last_message + "\"";
  return words + ")";
}

CauseWords from_journal(const Finding& f) {
  const KubeletInternalDetails& d = f.details<KubeletInternalDetails>();
  CauseWords w;
  const std::string metrics = d.endpoint.empty()
                                  ? "the kubelet's metrics are not read (--kubelet-endpoint is off)"
                                  : "the kubelet's metrics at " + d.endpoint + " could not be read (see the kubelet section)";
  w.reason = journal_words(f) + ", while plegscope's relists on the same runtime take " +
             text::elapsed(d.agent_relist_p99_seconds) + " (p99) and never stopped meanwhile; " + metrics +
             ", so the kubelet's own relist was not measured";
  w.action = "the kubelet is likely stuck, not the runtime: read its metrics to confirm (RBAC get nodes/metrics), "
             "dump the kubelet's goroutines, then restart the kubelet";
  w.summary = "The kubelet says its PLEG is not healthy while the runtime answers plegscope: " + w.reason + ".";
  return w;
}

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const KubeletInternalDetails& d = f.details<KubeletInternalDetails>();
  if (f.form == Form::kFromJournal) return from_journal(f);
  CauseWords w;
  std::string stopped;
  if (d.kubelet_flat_seconds && *d.kubelet_flat_seconds >= d.threshold_seconds)
    stopped = "the kubelet's relist count has not advanced for " + text::elapsed(*d.kubelet_flat_seconds);
  if (d.kubelet_last_seen_age_seconds && *d.kubelet_last_seen_age_seconds >= d.threshold_seconds)
    stopped += (stopped.empty() ? "the kubelet's PLEG was last seen active " : " and it was last seen active ") +
               text::elapsed(*d.kubelet_last_seen_age_seconds) + " ago";
  w.reason = stopped + ", while plegscope's relists on the same runtime take " +
             text::elapsed(d.agent_relist_p99_seconds) + " (p99)";
  const std::string journal = journal_words(f);
  if (!journal.empty()) w.reason += "; " + journal;
  w.action = "the kubelet is stuck, not the runtime: dump the kubelet's goroutines, then restart the kubelet";
  w.summary = "The kubelet's own PLEG has stopped: " + w.reason + ", so the runtime answers and the kubelet does not ask";
  if (f.severity != Severity::kCritical)
    w.summary += " (the kubelet reports PLEG unhealthy after " + text::elapsed(d.model_threshold_seconds) + ")";
  w.summary += ".";
  return w;
}

}  // namespace
// The runbook's paragraphs are, word for word, docs/runbook.md's
// ## kubelet_internal once the placeholders are filled with
// runbook_command_names(). Edit both or cause_texts_test fails.
// clang-format off
const CauseWording kubelet_internal_wording = {
  {"`{crictl} ps -a` answers at once while `kubectl get node {node}` says PLEG is not healthy; on the node, "
   "`curl -s -m 10 --cacert ca.crt -H \"Authorization: Bearer $TOKEN\" https://127.0.0.1:10250/metrics | grep "
   "kubelet_pleg_relist_duration_seconds_count` twice a minute apart shows the same count, and `timeout 20 "
   "journalctl -u kubelet --since -15m` shows no relist or sync activity.",
   "Capture the kubelet's goroutines first. `/debug/pprof` on the kubelet needs `nodes/proxy`, which the agent "
   "never has, so on the node run `timeout 10 systemctl kill --kill-who=main -s QUIT kubelet`: Go writes every "
   "goroutine's stack to the kubelet's journal (`timeout 20 journalctl -u kubelet -o cat --since -2min > "
   "kubelet-goroutines.txt`) and the kubelet exits, so systemd restarts it: this is the restart too. Where it "
   "is not restarted by systemd, `systemctl restart kubelet`. Attach the dump to a kubelet bug report (look for "
   "the PLEG's relist goroutine blocked on a channel send).",
   "Restart the runtime for this ({service} answers every other client, and a restart only disturbs running "
   "pods), and never reboot the node: the kubelet's goroutine dump is the evidence."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
