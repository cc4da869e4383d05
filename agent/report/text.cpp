#include "report/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/beside.h"
#include "report/format.h"
#include "report/journal_text.h"
#include "report/lag_text.h"
#include "report/host_sections.h"
#include "report/wording.h"

namespace plegscope {
namespace {

using text::elapsed;
using text::fmt;
using text::number;

// Greedy word wrap, every line prefixed with `indent`.
std::string wrap(const std::string& text, const std::string& indent, size_t width = 92) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && indent.size() + line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

// The first line at `indent`, the ones it wraps onto further in.
std::string hanging_wrap(const std::string& text, const std::string& indent,
                         const std::string& more) {
  std::string out = wrap(text, more);
  return out.empty() ? out : indent + out.substr(more.size());
}

std::string pad(std::string s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// Eight-level bars of the last completed relists, scaled to the largest;
// "x" for a failed one.
std::string sparkline(const std::vector<const TimelineEntry*>& relists) {
  static const char* kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  double top = 0;
  for (const auto* e : relists) top = std::max(top, e->duration_seconds);
  std::string out;
  for (const auto* e : relists) {
    if (e->error) {
      out += "x";
      continue;
    }
    int level = top > 0 ? static_cast<int>(std::lround(7 * e->duration_seconds / top)) : 0;
    out += kBars[std::clamp(level, 0, 7)];
  }
  return out;
}

void relist_section(const Report& r, std::ostream& out) {
  std::vector<const TimelineEntry*> done;
  for (const auto& e : r.timeline)
    if (!e.in_progress) done.push_back(&e);
  size_t failed =
      std::count_if(done.begin(), done.end(), [](const auto* e) { return e->error.has_value(); });
  out << "Relist: period " << elapsed(r.relist.period_seconds) << ", threshold "
      << elapsed(r.relist.threshold_seconds) << ", last seen "
      << (r.relist.seconds_since_last_seen ? elapsed(*r.relist.seconds_since_last_seen) + " ago"
                                           : "never")
      << "\n";
  if (const TimelineEntry* now = relist_in_progress(r))
    out << hanging_wrap("in progress: " + describe_in_progress(*now), "  ", "    ");
  else if (r.relist.in_progress_seconds)
    out << "  in progress: running for " << elapsed(*r.relist.in_progress_seconds) << "\n";
  if (r.relist.events_late_by_seconds)
    out << "  " << lateness(*r.relist.events_late_by_seconds) << "\n";
  if (done.empty())
    out << "  no relist has completed yet\n";
  else
    out << "  duration p50 " << elapsed(r.relist.duration_p50_seconds) << ", p99 "
        << elapsed(r.relist.duration_p99_seconds) << " over "
        << text::count(static_cast<long>(done.size()), "completed relist", "completed relists")
        << " (" << failed << " failed)\n";
  // Journal: a runtime restart beside the failed relists.
  if (auto note = runtime_restart_note(r)) out << hanging_wrap(*note, "  ", "    ");
  if (r.relist.stretched_period_seconds)
    out << hanging_wrap("do no harm: plegscope relists every " + elapsed(*r.relist.stretched_period_seconds) +
                            " instead of every " + elapsed(r.relist.period_seconds) + " while the runtime struggles (" +
                            r.relist.stretch_reason.value_or("") + ")",
                        "  ", "    ");
  if (r.relist.evented_fallback_reason)
    out << "  evented PLEG fell back to generic relisting: " << *r.relist.evented_fallback_reason
        << "\n";
  else if (r.relist.mode == "evented")
    out << "  evented PLEG active (GetContainerEvents); generic relist as a safety net\n";
  if (!done.empty()) {
    if (done.size() > 60) done.erase(done.begin(), done.end() - 60);
    out << "  last " << done.size() << ": " << sparkline(done) << "\n";
  }
}

}  // namespace

const TimelineEntry* relist_in_progress(const Report& r) {
  if (r.timeline.empty() || !r.timeline.back().in_progress) return nullptr;
  return &r.timeline.back();
}

// The in-progress entry carries what the relist found so far: list time once
// ListPodSandbox answered, pods and containers once both lists did, then
// status calls and events as the changed pods are inspected.
std::string describe_in_progress(const TimelineEntry& e) {
  std::string out = "running for " + elapsed(e.duration_seconds);
  if (e.initial) out += " (the first relist: every pod is inspected once)";
  if (e.lists_done == 0) return out + "; waiting for ListPodSandbox";
  if (e.lists_done == 1)
    return out + "; ListPodSandbox answered after " + elapsed(e.list_seconds) +
           ", waiting for ListContainers";
  out += "; lists done in " + elapsed(e.list_seconds) + " (" + text::count(e.pods, "pod", "pods") +
         ", " + text::count(e.containers, "container", "containers") + ")";
  if (e.pods_changed > 0)
    out += "; " + std::to_string(std::min(e.pods_inspected, e.pods_changed)) + "/" +
           text::count(e.pods_changed, "changed pod", "changed pods") + " inspected";
  if (e.events > 0 || e.status_calls > 0)
    out += "; " + text::count(e.status_calls, "status call", "status calls") + " so far (" +
           elapsed(e.status_seconds) + ") for " + text::count(e.events, "event", "events");
  return out;
}

// The node condition's section: only with --node-condition.
static void node_condition_text(const NodeConditionState& n, std::ostream& out) {
  if (!n.enabled) return;
  out << "Node condition plegscope.io/PLEGUnhealthy: ";
  if (n.status) out << *n.status << " (" << n.reason.value_or("") << "), " << n.writes << " writes, " << n.events
                    << " events\n";
  else out << "not written yet\n";
  // NodeRepairAdvised only says True where the kubelet (or evidence of the
  // node itself) and the fleet share bear it out: say which held it back.
  if (n.repair_advice.rfind("withheld_", 0) == 0) {
    out << "Node condition plegscope.io/NodeRepairAdvised: withheld ("
        << n.repair_advice.substr(9) << (n.repair_kubelet.empty() ? "" : "; kubelet " + n.repair_kubelet);
    if (n.fleet_agents && n.fleet_advising)
      out << "; " << *n.fleet_advising << " of " << *n.fleet_agents << " agents advising or about to";
    out << ")\n";
  } else if (n.repair_status) {
    out << "Node condition plegscope.io/NodeRepairAdvised: " << *n.repair_status
        << (n.repair_kubelet.empty() ? "" : " (kubelet " + n.repair_kubelet + ")") << "\n";
  }
  if (n.error) out << wrap(*n.error, "  ");
}

std::vector<std::string> remedy_parts(const std::string& remedy) {
  std::vector<std::string> parts;
  size_t from = 0;
  for (const char* label : {" Fix: ", " Do not: "}) {
    size_t at = remedy.find(label, from);
    if (at == std::string::npos) continue;
    parts.push_back(remedy.substr(from, at - from));
    from = at + 1;
  }
  parts.push_back(remedy.substr(from));
  return parts;
}

std::string lateness(double late_by_seconds) {
  return "events reach the kubelet up to " + elapsed(late_by_seconds) + " late";
}

std::string status_label(Status status) {
  switch (status) {
    case Status::kHealthy:
      return "HEALTHY";
    case Status::kAtRisk:
      return "AT RISK";
    case Status::kUnhealthy:
      return "UNHEALTHY";
  }
  return status_name(status);
}

// Which of the kubelet's two paths to NotReady the node is on or nearest
// to: 30 s without a good Status answer, or the PLEG's relist threshold.
std::string kubelet_paths_line(const Report& r) {
  const Report::RuntimeStatus& s = r.runtime_status;
  if (s.not_ready_path == "none") return "";
  // Read from the kubelet (its metrics or its Node's Ready message), or only
  // the kubelet's rules applied by plegscope: the line says which.
  const bool kubelet_read = r.kubelet.reachable || (r.kubelet.ready_message && !r.kubelet.ready_message->empty());
  std::string out = kubelet_read ? "KUBELET: " : "KUBELET (plegscope's reckoning by the kubelet's rules; the kubelet was not read): ";
  const bool on = s.not_ready_in_seconds && *s.not_ready_in_seconds <= 0;
  if (s.not_ready_path == "both")
    out += "NotReady on both paths: the runtime's Status and PLEG";
  else if (s.not_ready_path == "runtime_status")
    out += on ? "NotReady through the runtime's Status (before PLEG's threshold)"
              : "NotReady through the runtime's Status in " + elapsed(s.not_ready_in_seconds.value_or(0));
  else
    out += on ? "NotReady through PLEG" : "NotReady through PLEG in " + elapsed(s.not_ready_in_seconds.value_or(0));
  for (size_t i = 0; i < s.kubelet_errors.size(); ++i) out += (i ? "; " : " (") + s.kubelet_errors[i];
  if (!s.kubelet_errors.empty()) out += ")";
  if (s.ready_message_path && *s.ready_message_path != "other")
    out += ". The kubelet's Ready message names " +
           std::string(*s.ready_message_path == "both" ? "both" : *s.ready_message_path == "pleg" ? "PLEG" : "the runtime's Status");
  return out + "\n";
}

static void causes_text(const Report& r, std::ostream& out) {
  if (r.causes.empty()) {
    out << "Causes: none. Every rule found its signals within thresholds.\n\n";
    return;
  }
  out << "Causes, most likely first:\n";
  int i = 0;
  for (const auto& c : r.causes) {
    out << "\n  " << ++i << ". " << cause_name(c.id) << "  [" << severity_name(c.severity)
        << ", confidence " << fmt("%.2f", c.confidence) << "]\n";
    out << wrap(c.summary, "     ");
    out << "     evidence:\n";
    for (const auto& e : c.evidence) {
      out << "       " << pad(e.signal, 48) << " " << pad(number(e.value), 10, true);
      if (e.threshold) out << "   threshold " << number(*e.threshold);
      out << "\n";
    }
    out << "     advice: " << advice_name(c.advice) << "\n";
    out << "     remedy:\n";
    for (const auto& part : remedy_parts(c.remedy)) out << hanging_wrap(part, "       ", "         ");
  }
  out << "\n";
}

static void runtime_text(const Report& r, std::ostream& out) {
  out << "Runtime: "
      << (r.runtime.name.empty() ? "unknown" : r.runtime.name + " " + r.runtime.version) << " at "
      << r.runtime.endpoint << "\n";
  if (!r.runtime.operations.empty()) {
    out << "  " << pad("operation", 22) << pad("count", 8, true) << pad("errors", 8, true)
        << pad("p50", 9, true) << pad("p99", 9, true) << pad("max", 9, true)
        << pad("in-flight", 11, true) << pad("oldest", 9, true) << "\n";
    for (const auto& [name, o] : r.runtime.operations)
      out << "  " << pad(name, 22) << pad(std::to_string(o.count), 8, true)
          << pad(std::to_string(o.errors), 8, true) << pad(elapsed(o.p50_seconds), 9, true)
          << pad(elapsed(o.p99_seconds), 9, true) << pad(elapsed(o.max_seconds), 9, true)
          << pad(std::to_string(o.in_flight), 11, true)
          << pad(o.in_flight ? elapsed(o.oldest_in_flight_seconds) : "-", 9, true) << "\n";
  }
  out << "\n";
}

static void pods_and_events_text(const Report& r, std::ostream& out) {
  out << "Pods: " << r.pods.sandboxes << " sandboxes, " << r.pods.containers << " containers ("
      << r.pods.running_containers << " running, " << r.pods.exited_containers << " exited), "
      << r.pods.pods_to_reinspect << " to reinspect\n";
  out << "Events: p99 " << number(r.events.per_relist_p99) << " per relist, "
      << r.events.discarded_total << " discarded;";
  for (const auto& [type, n] : r.events.by_type) out << " " << type << " " << n;
  out << "\n";
  if (!r.events.top_pods.empty()) {
    out << "  top pods:";
    size_t shown = 0;
    for (const auto& p : r.events.top_pods) {
      if (shown++ == 5) break;
      out << " " << p.namespace_ << "/" << p.name << " (" << p.events << ")";
    }
    out << "\n";
  }
  out << hanging_wrap("Event lag: " + lag_figures(r), "", "  ");
  if (auto evented = evented_lag_text(r)) out << hanging_wrap(*evented, "  ", "    ");
  if (auto harm = lag_harm(r)) out << "  " << *harm << "\n";
  if (!r.event_lag.worst_pods.empty()) {
    std::string worst = "worst:";
    size_t shown = 0;
    for (const auto& pod : r.event_lag.worst_pods) {
      if (shown++ == 5) break;
      worst += (shown > 1 ? ", " : " ") + lag_pod(pod);
    }
    out << hanging_wrap(worst, "  ", "    ");
  }
}

static void pressure_text(const Report& r, std::ostream& out) {
  const auto& p = r.node_pressure;
  out << "Node pressure: ";
  if (p.cpu_some_avg10 || p.io_some_avg10 || p.memory_some_avg10)
    out << "PSI some avg10 cpu " << (p.cpu_some_avg10 ? fmt("%.1f%%", *p.cpu_some_avg10) : "n/a")
        << ", io " << (p.io_some_avg10 ? fmt("%.1f%%", *p.io_some_avg10) : "n/a") << ", memory "
        << (p.memory_some_avg10 ? fmt("%.1f%%", *p.memory_some_avg10) : "n/a");
  else
    out << "PSI not available on this kernel";
  if (p.load1) out << "; load1 " << fmt("%.2f", *p.load1);
  if (p.pids) out << "; pids " << *p.pids << (p.pid_max ? "/" + std::to_string(*p.pid_max) : "");
  out << "\n";
}

// The kubelet's and the runtime's own lines, newest last.
static void journal_lines_text(const Report& r, std::ostream& out) {
  out << "\n" << hanging_wrap("Journal: " + journal_source_line(r), "", "  ");
  constexpr size_t kShown = 20;
  size_t from = r.journal.size() > kShown ? r.journal.size() - kShown : 0;
  if (from > 0) out << "  (the " << kShown << " newest; the JSON report has " << r.journal.size() << ")\n";
  for (size_t i = from; i < r.journal.size(); ++i) {
    const auto& m = r.journal[i];
    out << "  " << rfc3339(m.time) << "  " << m.unit << "  " << m.kind << "\n" << wrap(m.message, "      ");
  }
}

std::string render_text(const Report& r) {
  if (needs_words(r)) return render_text(worded(r));
  std::ostringstream out;
  out << "plegscope diagnosis of node " << r.node << " at " << rfc3339(r.generated_at) << "\n\n";
  out << "STATUS: " << status_label(r.status);
  if (r.blind)
    out << "  (plegscope is blind: " << r.blind->reason << ")";
  else if (!r.healthy && !r.health_message.empty())
    out << "  (PLEG is not healthy: " << r.health_message << ")";
  if (r.healthy && r.seconds_to_unhealthy)
    out << "  (unhealthy in about " << elapsed(*r.seconds_to_unhealthy) << " at this rate)";
  out << "\n" << wrap(kubelet_paths_line(r), "") << wrap(r.summary, "") << "\n";
  causes_text(r, out);
  relist_section(r, out);
  beside_text(r, out);  // the kubelet's relist beside the agent's
  node_condition_text(r.node_condition, out);
  out << "\n";
  runtime_text(r, out);
  pods_and_events_text(r, out);
  pressure_text(r, out);
  journal_lines_text(r, out);
  host_text(r, out);
  return out.str();
}

}  // namespace plegscope
