#include "diagnoser/hung_task_match.h"
#include "diagnoser/diagnoser.h"

#include <algorithm>
#include <map>

#include "common/quantile.h"
#include "diagnoser/advice.h"
#include "diagnoser/report_sections/cgroup_v2.h"
#include "diagnoser/context.h"
#include "diagnoser/event_lag_window.h"
#include "diagnoser/forecast.h"
#include "diagnoser/interactions.h"
#include "diagnoser/rule.h"
#include "diagnoser/report_sections/runtime_status.h"
#include "diagnoser/report_sections/shims.h"

namespace plegscope {
namespace {

// The rules, then the interactions between their findings, then ranking.
std::vector<Finding> judge_findings(const Context& c, bool pleg_unhealthy) {
  std::vector<Finding> findings;
  for (const Rule& rule : rule_table())
    if (auto found = rule.judge(c); found && found->confidence >= c.t.min_confidence)
      findings.push_back(std::move(*found));
  relate_pressure_to_slow_calls(findings);
  relate_pressure_to_hung_calls(c, findings);
  relate_backlog_to_failing_lists(c, findings);
  relate_lock_stall_to_hung_calls(findings);
  relate_cni_to_sandbox_status(findings);
  relate_host_to_calls(findings);
  attribute_unexplained(c, pleg_unhealthy, findings);
  rank(findings, c.t.min_confidence);
  advise_all(findings);
  return findings;
}

TimelineEntry timeline_entry(const RelistRecord& r) {
  TimelineEntry e;
  e.start = r.start;
  e.duration_seconds = to_seconds(r.duration);
  e.list_seconds = to_seconds(r.list_time);
  e.status_seconds = to_seconds(r.status_time);
  e.status_calls = r.status_calls;
  e.pods = r.pods;
  e.containers = r.containers;
  e.events = std::max(r.total_events(), r.in_progress ? r.events_found : 0);
  e.error = r.error_code;
  e.initial = r.initial;
  e.in_progress = r.in_progress;
  e.lists_done = r.lists_done;
  e.pods_changed = r.pods_changed;
  e.pods_inspected = r.pods_inspected;
  return e;
}

// The kubelet and the runtime's metrics.
void fill_beside(const Snapshot& s, Report& report) {
  const KubeletEvidence& k = s.kubelet;
  report.kubelet.endpoint = k.endpoint;
  report.kubelet.reachable = k.reachable;
  report.kubelet.outcome = k.outcome;
  report.kubelet.tls_mode = k.tls_mode;
  const KubeletView& v = k.view;
  if (v.version) report.kubelet.version = v.version->git_version;
  report.kubelet.version_overridden = v.version_overridden;
  // Always said, read or assumed: the agent copies some kubelet's PLEG.
  report.kubelet.model = pleg_model_name(v.model.kind);
  report.kubelet.model_release =
      std::to_string(v.model.behaviour.major) + "." + std::to_string(v.model.behaviour.minor);
  report.kubelet.model_source = model_source_name(v.model.source);
  if (k.reachable) {
    report.kubelet.last_seen_age_seconds = v.last_seen_age_seconds;
    report.kubelet.relist_p99_seconds = v.relist_p99_seconds;
    report.kubelet.relists_per_minute = v.relists_per_minute;
    report.kubelet.seconds_since_relist_advanced = v.seconds_since_relist_advanced;
  }
  report.kubelet.ready_message = k.ready_message;
  report.kubelet.ready_outcome = k.ready_outcome;

  const RuntimeMetricsEvidence& m = s.runtime_metrics;
  report.runtime_metrics.endpoint = m.endpoint;
  report.runtime_metrics.reachable = m.reachable;
  report.runtime_metrics.outcome = m.outcome;
  for (const auto& call : m.in_flight)
    report.runtime_metrics.in_flight.push_back({call.method, call.count, call.seconds});
}

// The slowest per-pod calls of the window and the host evidence.
std::string pod_name(const PodRef& p) { return p.name.empty() ? "" : p.namespace_ + "/" + p.name; }

HostReport::Blocked::KernelStack kernel_stack_report(const host::BlockedTask& b) {
  HostReport::Blocked::KernelStack k;
  k.tid = b.tid;
  k.frames = b.kernel_stack;
  k.top = b.kernel_meaning.top_frame;
  if (b.kernel_meaning.frame_class) k.frame_class = host::frame_class_name(*b.kernel_meaning.frame_class);
  return k;
}

// One entry per blocked process: the scanner lists tasks, longest in D
// first, so a process's first task is its worst.
void fill_blocked(const Snapshot& s, HostReport& h) {
  auto pod_of = [&](const std::string& sandbox) {
    auto it = s.pods_by_sandbox.find(sandbox);
    return it == s.pods_by_sandbox.end() ? std::string() : pod_name(it->second);
  };
  const auto& p = s.host->processes;
  std::map<int64_t, host::StackSays> shown;  // how much each process's shown stack says
  for (const auto& b : p.blocked) {
    auto same = std::find_if(h.processes.blocked.begin(), h.processes.blocked.end(),
                             [&](const HostReport::Blocked& e) { return e.pid == b.pid; });
    if (same != h.processes.blocked.end()) {
      same->tasks_in_d++;
      if (b.kernel_meaning.says > shown[b.pid]) {
        same->kernel_stack = kernel_stack_report(b);
        shown[b.pid] = b.kernel_meaning.says;
      }
      continue;
    }
    shown[b.pid] = b.kernel_meaning.says;
    HostReport::Blocked e;
    e.pid = b.pid;
    e.comm = b.comm;
    e.state = std::string(1, b.state);
    e.wchan = b.wchan;
    e.wchan_hidden = host::wchan_hidden_name(b.wchan_hidden);
    e.seconds = b.seconds_in_d;
    e.sandbox_id = b.sandbox_id;
    e.pod = pod_of(b.sandbox_id);
    e.tid = b.tid;
    for (const auto& helper : p.helpers)
      if (helper.pid == b.pid) e.threads = helper.threads;
    e.hung_task = hung_task_for(s, b.pid);
    if (!b.kernel_stack.empty()) e.kernel_stack = kernel_stack_report(b);
    e.frozen_cgroup = b.frozen_cgroup;
    e.freeze_incomplete = b.freeze_incomplete;
    h.processes.blocked.push_back(std::move(e));
  }
}

void fill_host(const Snapshot& s, const Context& c, Report& report) {
  constexpr size_t kSlowestPods = 10;
  for (const auto& pc : s.pod_calls) {
    if (!pc.in_flight && pc.end < c.window_start) continue;
    if (report.runtime.slowest_pods.size() >= kSlowestPods) break;
    report.runtime.slowest_pods.push_back({pod_name(pc.pod), pc.pod.uid, pc.pod.sandbox_id,
                                           pc.pod.container_name, pc.op, pc.seconds, pc.in_flight});
  }
  HostReport& h = report.host;
  for (const auto& r : s.journal.hung_tasks) h.hung_tasks.push_back(kernel_hung_task(r));
  h.hung_tasks_suppressed_since = s.journal.hung_tasks_suppressed_since;
  if (!s.host) {
    h.error = "host scan off or not run yet";
    return;
  }
  h.reachable = true;
  const auto& p = s.host->processes;
  h.processes.helpers = static_cast<int64_t>(p.helpers.size());
  fill_blocked(s, h);
  h.processes.zombies = p.zombies;
  for (const auto& z : p.zombie_parents) {
    HostReport::ZombieParent e{z.pid, z.comm, z.zombies, "", z.pod_uid, z.sandbox_id, z.found_by};
    if (auto it = s.zombie_parent_pods.find(z.pid); it != s.zombie_parent_pods.end()) {
      e.pod = pod_name(it->second);
      if (e.pod_uid.empty()) e.pod_uid = it->second.uid;
      if (e.sandbox_id.empty()) e.sandbox_id = it->second.sandbox_id;
    }
    h.processes.zombie_parents.push_back(std::move(e));
  }
  fill_shims(s, h.processes);
  if (!p.unreadable.empty()) h.processes.error = p.unreadable;
  const host::KernelStacksRead& k = p.kernel_stacks;
  h.processes.kernel_stacks.enabled = k.enabled;
  h.processes.kernel_stacks.available = k.available;
  if (!k.error.empty()) h.processes.kernel_stacks.error = k.error;
  h.processes.kernel_stacks.tasks_asked = k.tasks_asked;
  h.processes.kernel_stacks.tasks_read = k.tasks_read;
  h.processes.kernel_stacks.read_seconds = k.wall_seconds;
  for (const auto& l : s.host->pid_limits)
    if (l.unreadable.empty()) h.pid_limits.push_back({l.scope, l.current, l.max});
  if (const auto& d = s.host->runtime_disk.value) {
    h.runtime_disk.device = d->device;
    h.runtime_disk.mount = d->mount;
    h.runtime_disk.latency_ms = d->latency_ms;
    h.runtime_disk.utilization = d->utilization;
  }
  if (!s.host->runtime_disk.unreadable.empty()) h.runtime_disk.error = s.host->runtime_disk.unreadable;
  fill_cgroup_v2(s, h);
}

void fill_figures(const Snapshot& s, const Context& c, Report& report) {
  // Relist figures over the whole timeline; the initial relist inspects
  // every pod, which is not what a relist costs.
  std::vector<double> durations, events;
  for (const auto& r : s.timeline) {
    if (r.initial && s.timeline.size() > 1) continue;
    if (!r.error_code) durations.push_back(to_seconds(r.duration));
    events.push_back(r.total_events());
  }
  report.relist.period_seconds = to_seconds(s.relist_period);
  report.relist.threshold_seconds = to_seconds(s.relist_threshold);
  if (s.last_seen) report.relist.seconds_since_last_seen = to_seconds(s.now - *s.last_seen);
  if (c.in_progress) report.relist.in_progress_seconds = to_seconds(c.in_progress->duration);
  report.relist.duration_p50_seconds = quantile(durations, 0.5);
  report.relist.duration_p99_seconds = quantile(durations, 0.99);
  if (c.late()) report.relist.events_late_by_seconds = c.relist_seconds;
  if (s.stretched_period) {
    report.relist.stretched_period_seconds = to_seconds(*s.stretched_period);
    report.relist.stretch_reason = s.stretch_reason;
  }
  report.relist.mode = s.evented_mode ? "evented" : "generic";
  if (!s.evented_fallback_reason.empty()) report.relist.evented_fallback_reason = s.evented_fallback_reason;

  report.runtime.endpoint = s.endpoint;
  report.runtime.name = s.runtime_name;
  report.runtime.version = s.runtime_version;
  for (const auto& [name, st] : s.operations) {
    // UNIMPLEMENTED is how a runtime answers an optional call it does not
    // serve (the event stream, streamed lists): an answer, not a failure.
    const auto unimplemented = st.errors_by_code.find(GrpcCode::kUnimplemented);
    const uint64_t refused = unimplemented == st.errors_by_code.end() ? 0 : unimplemented->second;
    report.runtime.operations[name] = {static_cast<int64_t>(st.count),
                                       static_cast<int64_t>(st.errors - refused), st.p50_seconds,
                                       st.p99_seconds, st.max_seconds, st.in_flight,
                                       st.oldest_in_flight_seconds};
  }

  if (c.last_ok) {
    report.pods.sandboxes = c.last_ok->sandboxes;
    report.pods.containers = c.last_ok->containers;
    report.pods.running_containers = c.last_ok->running_containers;
    report.pods.exited_containers = c.last_ok->exited_containers;
  }
  report.pods.pods_to_reinspect = static_cast<int>(s.pods_to_reinspect);

  report.events.per_relist_p99 = quantile(events, 0.99);
  for (size_t i = 0; i < std::size(kAllEventTypes); ++i) {
    int64_t n = 0;
    for (const auto& r : s.timeline) n += r.events_by_type[i];
    report.events.by_type[event_type_name(kAllEventTypes[i])] = n;
  }
  report.events.discarded_total = static_cast<int64_t>(s.events_discarded_total);
  // Top pods over the timeline and the relist in progress, which knows its
  // changed pods as soon as it compared its lists.
  std::map<std::string, TopPod> pods;
  auto add_top_pods = [&](const RelistRecord& r) {
    if (r.initial) return;  // every pod is new there
    for (const auto& p : r.top_pods) {
      TopPod& top = pods[p.pod->uid];
      top = {p.pod->uid, p.pod->namespace_, p.pod->name, top.events + p.events};
    }
  };
  for (const auto& r : s.timeline) add_top_pods(r);
  if (c.in_progress) add_top_pods(*c.in_progress);
  for (auto& [uid, p] : pods) report.events.top_pods.push_back(p);
  std::stable_sort(report.events.top_pods.begin(), report.events.top_pods.end(),
                   [](const TopPod& a, const TopPod& b) { return a.events > b.events; });
  if (report.events.top_pods.size() > 10) report.events.top_pods.resize(10);

  if (s.pressure) {
    report.node_pressure = {s.pressure->cpu_some_avg10, s.pressure->io_some_avg10, s.pressure->memory_some_avg10,
                            s.pressure->load1,          s.pressure->pids,          s.pressure->pid_max};
  }
  fill_beside(s, report);
  fill_host(s, c, report);
  for (const auto& r : s.timeline) report.timeline.push_back(timeline_entry(r));
  if (c.in_progress) report.timeline.push_back(timeline_entry(*c.in_progress));
}

// Journal marks: the newest ones, and whether there is a journal at all
// (a report without one says so, and nothing else changes).
constexpr size_t kJournalMarksInReport = 100;

void fill_journal(const Snapshot& s, Report& report) {
  const JournalEvidence& j = s.journal;
  report.journal_source.reachable = j.available;
  report.journal_source.path = j.path;
  if (!j.error.empty()) report.journal_source.error = j.error;
  else if (!j.available) report.journal_source.error = "no journal read yet";
  report.journal_source.kubelet_unit = j.kubelet_unit;
  report.journal_source.runtime_units = j.runtime_units;
  size_t from = j.marks.size() > kJournalMarksInReport ? j.marks.size() - kJournalMarksInReport : 0;
  for (size_t i = from; i < j.marks.size(); ++i)
    report.journal.push_back({j.marks[i].time, j.marks[i].unit, j.marks[i].kind, j.marks[i].message});
}

// At risk takes a forecast or a cause that is at least a warning. An
// info-level cause (node pressure while every call and relist is still fast:
// a busy batch node) is listed on a healthy node, never paged on.
bool at_risk(const Report& report) {
  if (report.seconds_to_unhealthy) return true;
  for (const Cause& c : report.causes)
    if (c.severity != Severity::kInfo) return true;
  return false;
}

// The agent cannot see the runtime for a reason of its own: what it failed
// to see is not evidence about the node. Its PLEG is unhealthy only in its
// own eyes, so the report is at risk (someone must act, on the agent) with
// the one warning that says so; every other finding rests on a view the
// agent does not have and is dropped, so nothing advises repairing the node.
void blind_verdict(const Snapshot& s, Report& report) {
  std::vector<Cause> kept;
  for (Cause& cause : report.causes)
    if (cause.id == CauseId::kRuntimeUnavailable && cause.form == Form::kBlind) kept.push_back(std::move(cause));
  report.causes = std::move(kept);
  report.seconds_to_unhealthy.reset();
  report.status = Status::kAtRisk;
  report.blind = Report::Blind{connect_problem_name(s.unreachable), s.endpoint, ""};
  // What the kubelet would say is reckoned from the agent's own calls: with
  // none answered, that reckoning says nothing of the kubelet's view.
  report.runtime_status.kubelet_errors.clear();
  report.runtime_status.not_ready_path = "none";
  report.runtime_status.not_ready_in_seconds.reset();
}

}  // namespace

Report diagnose(const Snapshot& s, const DiagnoserThresholds& t) {
  const Context c = make_context(s, t);
  Report report;
  report.node = s.node;
  report.generated_at = s.now;
  report.node_condition = s.node_condition;
  report.healthy = s.healthy;
  report.health_message = s.health_message;
  report.seconds_to_unhealthy = forecast_seconds_to_unhealthy(c);
  // An unhealthy PLEG or a forecast is evidence for a cause, never a cause
  // on its own: judge_findings attributes one when no rule named it.
  for (Finding& f : judge_findings(c, !s.healthy || report.seconds_to_unhealthy.has_value()))
    report.causes.emplace_back(std::move(f));
  report.status = !s.healthy ? Status::kUnhealthy : at_risk(report) ? Status::kAtRisk : Status::kHealthy;
  fill_figures(s, c, report);
  fill_journal(s, report);
  fill_runtime_status(s, report);
  report.event_lag = event_lag_over(s.timeline);  // Event lag.
  report.event_lag.evented = evented_lag_figures(s.evented_lag);
  if (s.agent_blind) blind_verdict(s, report);
  return report;
}

std::map<CauseId, double> cause_confidences(const Report& report) {
  std::map<CauseId, double> out;
  for (CauseId id : kAllCauses) out[id] = 0;
  for (const auto& c : report.causes) out[c.id] = c.confidence;
  return out;
}

}  // namespace plegscope
