// The words of event_storm: many pods change per relist.
#include "diagnoser/rules/event_storm.h"
#include "report/wording.h"

namespace plegscope {
namespace {

CauseWords words_of(const Finding& f, const RuntimeModel&) {
  const EventStormDetails& d = f.details<EventStormDetails>();
  CauseWords w;
  w.reason = text::fmt("%.0f", d.pods_per_relist) + " pods change per relist (" +
             text::fmt("%.0f", d.events_per_relist) + " events), and inspecting them one by one takes " +
             text::fmt("%.0f", d.share * 100) + "% of each relist";
  if (d.discarded > 0) w.reason += "; " + std::to_string(d.discarded) + " events were discarded";
  w.action = "find and stop the crash-looping or rolling workload";
  w.summary = "An event storm: " + w.reason + ".";
  return w;
}

}  // namespace

// The runbook's paragraphs are, word for word, docs/runbook.md's ## event_storm
// once the placeholders are filled with runbook_command_names(). Edit both
// or the unit test cause_texts_test fails.
// clang-format off
const CauseWording event_storm_wording = {
  {"The top pods in this report and `/debug/events`; `kubectl get pods -A --field-selector "
   "spec.nodeName={node} | grep -Ev 'Running|Completed'`; `{crictl} ps -a --state exited | head -20` for crash "
   "loops; `kubectl get events -A --sort-by=.lastTimestamp | tail`.",
   "Stop the crash loop (fix or scale down the workload, `kubectl rollout undo`), slow the rollout "
   "(`maxSurge`, `maxUnavailable`), drain in smaller batches, spread the pods over more nodes.",
   "Restart the kubelet: the storm goes on and the kubelet re-inspects every pod at start. Do not raise "
   "`--event-channel-capacity` to make it go away: that hides the discards, relists stay as slow."},
  words_of,
  nullptr,
};
// clang-format on

}  // namespace plegscope
