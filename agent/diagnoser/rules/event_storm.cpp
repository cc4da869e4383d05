// event_storm: many pods change per relist, so serial per-pod inspection
// dominates relists and events may be discarded. The relist in progress
// counts as soon as it has compared its lists, long before it ends.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/event_storm.h"

namespace plegscope {

namespace {

// The storm's evidence has ended: the relist in progress compared its lists
// and found it calm, or the window's last relists after the newest stormy one
// were calm, or that one ended more than the window ago (a hang since has kept
// relists from completing, so the window still holds it). An ended storm is
// no cause: left in, it stays second behind whatever came next for a minute.
bool storm_ended(const Context& c) {
  auto stormy = [&c](const RelistRecord& r) {
    return std::max(r.pods_changed, r.pods_with_events) >= c.t.storm_pods_per_relist || r.events_discarded > 0;
  };
  const bool diffed = c.in_progress && !c.in_progress->initial && c.in_progress->lists_done == 2;
  if (diffed && stormy(*c.in_progress)) return false;
  const RelistRecord* newest = nullptr;
  int calm_after = 0;
  for (const auto* r : c.steady) {
    if (stormy(*r)) {
      newest = r;
      calm_after = 0;
    } else {
      calm_after++;
    }
  }
  if (!newest) return false;  // a mean over the window without a stormy relist: judged as before
  if (calm_after + (diffed ? 1 : 0) >= c.t.window_relists) return true;
  const double since_end = to_seconds(c.s.now - (newest->start + newest->duration));
  return since_end > c.t.window_seconds;
}

}  // namespace

std::optional<Finding> judge_event_storm(const Context& c) {
  int discarded = 0;
  double events = 0;
  for (const auto* r : c.steady) {
    discarded += r->events_discarded;
    events += std::max(r->events_found, r->total_events());
  }
  if (c.in_progress && !c.in_progress->initial && c.in_progress->lists_done == 2)
    events += c.in_progress->events_found;
  const double events_mean = c.change_relists > 0 ? events / c.change_relists : 0;
  const bool storm = c.change_relists > 0 && c.pods_changed >= c.t.storm_pods_per_relist;
  if (!storm && discarded == 0) return std::nullopt;
  if (storm_ended(c)) return std::nullopt;
  double confidence = (storm ? 0.6 : 0.5) + (c.status_share >= 0.5 ? 0.15 : 0) + (discarded > 0 ? 0.15 : 0) +
                      (c.pods_changed >= 2 * c.t.storm_pods_per_relist ? 0.1 : 0) -
                      (c.change_relists < 2 ? 0.1 : 0);  // one relist may be a single rollout
  Finding f = make_finding(CauseId::kEventStorm, Severity::kWarning, confidence);
  EventStormDetails& d = f.details<EventStormDetails>();
  d.pods_per_relist = c.pods_changed;
  d.events_per_relist = events_mean;
  d.share = c.status_share;
  d.discarded = discarded;
  f.evidence.push_back({"pods_with_events_per_relist", c.pods_changed, c.t.storm_pods_per_relist});
  f.evidence.push_back({"events_per_relist", events_mean, {}});
  f.evidence.push_back({"relists_judged", static_cast<double>(c.change_relists), {}});
  f.evidence.push_back({"status_share_of_relist", c.status_share, 0.5});
  f.evidence.push_back({"events_discarded_in_window", static_cast<double>(discarded), 0});
  return f;
}

}  // namespace plegscope
