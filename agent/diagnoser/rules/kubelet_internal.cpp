// kubelet_internal: the kubelet's own relist has stopped (its relist count
// flat, or its last-seen timestamp aging) while the agent's relists against
// the same runtime complete in their normal time: the runtime answers, the
// kubelet does not ask (kubernetes#72482). The kubelet's journal lines
// ("PLEG is not healthy") are cited beside its metrics; where its metrics
// cannot be read, those lines beside the agent's fast relists name the cause
// at a lower confidence. Lines are evidence only, never an action.
#include <algorithm>

#include "common/quantile.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/kubelet_internal.h"

namespace plegscope {
namespace {

// Below the confidence of a measured kubelet relist: the kubelet's words
// and the agent's own relists, without the kubelet's figures.
constexpr double kFromJournalConfidence = 0.45;

// The agent's own relists on the same runtime are normal now: recent,
// quick, none hung. nullopt otherwise; else their p99 over the window.
std::optional<double> agent_relists_fast(const Context& c) {
  const Snapshot& s = c.s;
  if (c.hung() || !c.last_ok || !s.last_seen) return std::nullopt;
  if (to_seconds(s.now - *s.last_seen) > c.t.hang_seconds + c.period_seconds()) return std::nullopt;
  if (c.in_progress && to_seconds(c.in_progress->duration) >= c.t.hang_seconds) return std::nullopt;
  std::vector<double> durations;
  for (const RelistRecord* r : c.window_ok) durations.push_back(to_seconds(r->duration));
  const double p99 = quantile(durations, 0.99);
  if (p99 >= c.t.hang_seconds) return std::nullopt;
  return p99;
}

// Every relist the agent ran since `from` succeeded within the hang
// threshold, with no gap longer than that between them: the runtime
// answered throughout the time the kubelet's lines speak of.
bool agent_relisted_throughout(const Context& c, TimePoint from) {
  const double max_gap = c.t.hang_seconds + c.period_seconds();
  TimePoint previous_end = from;
  bool any = false;
  for (const RelistRecord& r : c.s.timeline) {
    const TimePoint end = r.start + r.duration;
    if (end < from) continue;
    if (r.error_code || to_seconds(r.duration) >= c.t.hang_seconds) return false;
    if (to_seconds(r.start - previous_end) > max_gap) return false;
    previous_end = std::max(previous_end, end);
    any = true;
  }
  return any;
}

// How long the runtime has answered the agent without a break: since the
// end of the newest relist in the agent's timeline that failed or was held
// past the hang threshold. nullopt: the timeline holds no such relist.
std::optional<double> runtime_answering_seconds(const Context& c) {
  std::optional<TimePoint> since;
  for (const RelistRecord& r : c.s.timeline)
    if (r.error_code || to_seconds(r.duration) >= c.t.hang_seconds) since = r.start + r.duration;
  if (!since) return std::nullopt;
  return std::max(0.0, to_seconds(c.s.now - *since));
}

void cite_journal(const JournalEvidence& j, TimePoint now, Finding& f) {
  KubeletInternalDetails& d = f.details<KubeletInternalDetails>();
  if (j.pleg_not_healthy_marks == 0 || !j.last_pleg_not_healthy) return;
  d.journal_marks = j.pleg_not_healthy_marks;
  d.journal_first_mark = j.first_pleg_not_healthy;
  d.journal_last_mark = j.last_pleg_not_healthy;
  d.journal_last_message = j.last_pleg_not_healthy_message;
  f.evidence.push_back({"kubelet_journal_pleg_not_healthy_lines", double(j.pleg_not_healthy_marks), std::nullopt});
  f.evidence.push_back({"kubelet_journal_seconds_since_pleg_not_healthy",
                        std::max(0.0, to_seconds(now - *j.last_pleg_not_healthy)), std::nullopt});
}

// The kubelet's metrics could not be read: its journal says PLEG is not
// healthy while the agent relisted fast throughout, and the runtime did
// not restart meanwhile (a restart explains the kubelet's words).
std::optional<Finding> from_journal(const Context& c) {
  const JournalEvidence& j = c.s.journal;
  if (j.pleg_not_healthy_marks == 0 || !j.last_pleg_not_healthy || j.runtime_restart_marks > 0) return std::nullopt;
  const std::optional<double> agent_p99 = agent_relists_fast(c);
  if (!agent_p99) return std::nullopt;
  // The kubelet's line covers its threshold before it; as much of that as
  // the agent's timeline holds must show the runtime answering.
  const double threshold = c.s.kubelet.view.model.relist_threshold_seconds;
  TimePoint from = *j.last_pleg_not_healthy - std::chrono::duration_cast<Duration>(
                                                  std::chrono::duration<double>(threshold));
  if (!c.s.timeline.empty()) from = std::max(from, c.s.timeline.front().start);
  if (!agent_relisted_throughout(c, from)) return std::nullopt;

  Finding f = make_finding(CauseId::kKubeletInternal, Severity::kWarning, kFromJournalConfidence, Form::kFromJournal);
  KubeletInternalDetails& d = f.details<KubeletInternalDetails>();
  d.endpoint = c.s.kubelet.endpoint;
  d.model_threshold_seconds = threshold;
  d.agent_relist_p99_seconds = *agent_p99;
  cite_journal(j, c.s.now, f);
  f.evidence.push_back({"agent_relist_p99_seconds", *agent_p99, c.t.hang_seconds});
  return f;
}

}  // namespace

std::optional<Finding> judge_kubelet_internal(const Context& c) {
  const KubeletEvidence& k = c.s.kubelet;
  if (!k.reachable) return from_journal(c);
  const KubeletView& v = k.view;
  // The kubelet relists once per period of its model (300 s with the legacy
  // EventedPLEG gate): a count flat for a period plus the hang threshold has
  // stopped, not paused.
  const double stall_after = c.t.hang_seconds + v.model.relist_period_seconds;
  std::optional<double> flat, age;
  // Only what the scrapes saw: between two scrapes the count is unknown,
  // not flat (a healthy kubelet relists many times between them).
  if (v.relist_count && v.samples >= 2 && v.seconds_since_relist_advanced)
    flat = std::max(0.0, *v.seconds_since_relist_advanced - v.sample_age_seconds.value_or(0));
  // Same host, same wall clock: a negative age is a clock step, not evidence.
  if (v.last_seen_age_seconds && *v.last_seen_age_seconds >= 0) age = v.last_seen_age_seconds;
  const double kubelet_stalled = std::max(flat.value_or(0), age.value_or(0));
  // Only the part of the kubelet's stall during which the runtime answered
  // is the kubelet's own: a runtime that was down or held stopped the
  // kubelet's relists too, and once it answers again the kubelet's next
  // relist comes after its own call returns or its connection's backoff
  // (chaos campaign: 4-6 s after a stopped or killed runtime came back, a
  // kubelet last seen 13-23 s ago was named kubelet_internal).
  const double stalled = std::min(kubelet_stalled, runtime_answering_seconds(c).value_or(kubelet_stalled));
  if (stalled < stall_after) return std::nullopt;

  // The agent's relists on the same runtime must be normal. Otherwise the
  // runtime is the suspect (runtime_hung, ...).
  const std::optional<double> agent_p99 = agent_relists_fast(c);
  if (!agent_p99) return std::nullopt;

  const double threshold = v.model.relist_threshold_seconds;
  const double reach = std::clamp((stalled - stall_after) / std::max(1.0, threshold - stall_after), 0.0, 1.0);
  Finding f = make_finding(CauseId::kKubeletInternal, stalled >= threshold ? Severity::kCritical : Severity::kWarning,
                           0.6 + 0.3 * reach);
  KubeletInternalDetails& d = f.details<KubeletInternalDetails>();
  d.endpoint = k.endpoint;
  f.seconds = stalled;
  d.threshold_seconds = stall_after;
  d.model_threshold_seconds = threshold;
  d.kubelet_last_seen_age_seconds = age;
  d.kubelet_flat_seconds = flat;
  d.agent_relist_p99_seconds = *agent_p99;
  if (age) f.evidence.push_back({"kubelet_last_seen_age_seconds", *age, stall_after});
  if (flat) f.evidence.push_back({"kubelet_seconds_since_relist_count_advanced", *flat, stall_after});
  f.evidence.push_back({"agent_relist_p99_seconds", *agent_p99, c.t.hang_seconds});
  cite_journal(c.s.journal, c.s.now, f);
  return f;
}

}  // namespace plegscope
