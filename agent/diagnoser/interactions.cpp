#include "diagnoser/interactions.h"

#include <algorithm>
#include <cmath>

#include "diagnoser/prose.h"
#include "diagnoser/rule.h"

namespace plegscope {
namespace {

Cause* find(std::vector<Cause>& causes, CauseId id) {
  for (auto& c : causes)
    if (c.id == id) return &c;
  return nullptr;
}

// Causes that make a relist long; one of them explains late relists.
bool explains_relist_time(CauseId id) {
  return id != CauseId::kRuntimeUnavailable && id != CauseId::kMessageTooLarge;
}

}  // namespace

void relate_pressure_to_slow_calls(std::vector<Cause>& causes) {
  Cause* pressure = find(causes, CauseId::kNodePressure);
  if (!pressure || pressure->severity == Severity::kInfo) return;
  // Pressure well past its threshold is the likelier root; mild pressure
  // beside a slow runtime is only a suspect.
  const bool strong = pressure->strong;
  double top_symptom = 0;
  std::vector<std::string> symptoms;
  for (auto& c : causes) {
    if (c.id != CauseId::kRuntimeSlow && c.id != CauseId::kPodStatusSlow) continue;
    symptoms.push_back(cause_name(c.id));
    c.summary += " Node pressure may explain it (see node_pressure).";
    if (strong) c.confidence = std::round(c.confidence * 85) / 100;
    top_symptom = std::max(top_symptom, c.confidence);
  }
  if (symptoms.empty()) return;
  if (strong) {
    pressure->confidence = std::min(0.98, std::max(pressure->confidence, top_symptom + 0.05));
    pressure->summary += " A starved node makes every call slow: this is the likely root of " + symptoms.front() +
                         (symptoms.size() > 1 ? " and " + symptoms.back() : "") + ".";
  } else {
    pressure->summary += " It may be slowing the runtime (" + symptoms.front() + ").";
  }
}

void relate_backlog_to_failing_lists(const Context& c, std::vector<Cause>& causes) {
  Cause* backlog = find(causes, CauseId::kReinspectBacklog);
  if (!backlog) return;
  const Cause* runtime = nullptr;
  for (CauseId id : {CauseId::kRuntimeUnavailable, CauseId::kRuntimeHung})
    if (const Cause* found = find(causes, id); found && (!runtime || found->confidence > runtime->confidence))
      runtime = found;
  if (!runtime) return;
  for (const auto& [name, st] : c.s.operations) {
    if (!is_status_op(name)) continue;
    for (const CallSample& sample : st.recent)
      if (sample.end >= c.window_start && sample.code != GrpcCode::kOk) return;  // status calls fail too: its own cause
  }
  backlog->confidence = std::min(backlog->confidence, std::max(0.0, runtime->confidence - 0.05));
  backlog->summary += std::string(" No status call failed: the inspections fail in their list calls, as the relists do (see ") +
                      cause_name(runtime->id) + "), so this backlog clears when the runtime answers again.";
}

void attribute_unexplained(const Context& c, bool needs_cause, std::vector<Cause>& causes) {
  const bool late = c.late();
  if (!late && !needs_cause) return;
  for (const auto& cause : causes)
    if (late ? explains_relist_time(cause.id) : true) return;

  const double period = c.period_seconds();
  Cause cause;
  std::string where;
  if (c.relist_seconds <= 0 && !c.last_ok && c.lists.samples == 0) {
    // Nothing measured yet: the runtime has not answered a single list.
    cause = make_cause(CauseId::kRuntimeUnavailable, Severity::kWarning, 0.4);
    cause.reason = "the runtime has not answered a relist yet";
    cause.action = "check that the runtime is up and answers on its socket";
    cause.summary = "No relist has succeeded yet: " + cause.reason + ".";
    cause.evidence.push_back({"successful_relists", 0, 1});
  } else {
    const bool lists = c.list_share >= c.status_share;
    if (lists) {
      cause = make_cause(c.objects >= c.t.many_objects / 2 ? CauseId::kTooManyContainers : CauseId::kRuntimeSlow,
                         Severity::kWarning, 0.5);
      where = text::fmt("%.0f", c.list_share * 100) + "% of it in the two list calls (" +
              text::duration(c.list_seconds) + " for " + std::to_string(c.objects) + " objects)";
      cause.action = "find what slows the runtime's list calls";
    } else {
      const bool slow_calls = c.statuses.typical >= c.t.slow_status_seconds / 10;
      const bool backlog = c.s.pods_to_reinspect > 0 && c.pods_changed < 1;
      cause = make_cause(backlog ? CauseId::kReinspectBacklog
                         : slow_calls ? CauseId::kPodStatusSlow
                                      : CauseId::kEventStorm,
                         Severity::kWarning, 0.5);
      where = text::fmt("%.0f", c.status_share * 100) + "% of it in per-pod inspection (" +
              text::fmt("%.0f", c.pods_changed) + " pods changed per relist, status calls " +
              text::duration(c.statuses.typical) + " each)";
      cause.action = "find what makes per-pod inspection slow";
    }
    cause.reason = "relists take " + text::duration(c.relist_seconds) + ", " +
                   text::fmt("%.0f", c.relist_seconds / period) + " times the " + text::duration(period) +
                   " period, " + where;
    cause.summary = "Relists are late: " + cause.reason + ".";
    cause.evidence.push_back({"relist_seconds", c.relist_seconds, c.t.late_relist_periods * period});
    cause.evidence.push_back({lists ? "list_share_of_relist" : "status_share_of_relist",
                              lists ? c.list_share : c.status_share, 0.5});
  }
  causes.push_back(std::move(cause));
}

void rank(std::vector<Cause>& causes, double min_confidence) {
  causes.erase(std::remove_if(causes.begin(), causes.end(),
                              [&](const Cause& c) { return c.confidence < min_confidence; }),
               causes.end());
  std::stable_sort(causes.begin(), causes.end(), [](const Cause& a, const Cause& b) {
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return static_cast<int>(a.id) < static_cast<int>(b.id);
  });
}

}  // namespace plegscope
