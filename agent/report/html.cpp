#include "report/html.h"

#include <algorithm>
#include <sstream>

#include "report/beside.h"
#include "report/charts.h"
#include "report/format.h"
#include "report/journal_text.h"
#include "report/lag_text.h"
#include "report/host_sections.h"
#include "report/text.h"
#include "report/wording.h"

namespace plegscope {
namespace {

using text::elapsed;
using text::fmt;
using text::number;

// Escapes, and turns `code` spans (as remedies write commands) into <code>.
std::string with_code(const std::string& text) {
  std::string out;
  bool in_code = false;
  std::string chunk;
  for (char ch : text) {
    if (ch == '`') {
      out += in_code ? "<code>" + html_escape(chunk) + "</code>" : html_escape(chunk);
      chunk.clear();
      in_code = !in_code;
    } else {
      chunk += ch;
    }
  }
  out += html_escape(in_code ? "`" + chunk : chunk);
  return out;
}

const char* status_class(Status status) {
  if (status == Status::kHealthy) return "ok";
  if (status == Status::kAtRisk) return "warn";
  return "bad";
}

constexpr const char* kStyle = R"(
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 -apple-system,"Segoe UI",Roboto,"DejaVu Sans",Helvetica,Arial,sans-serif;color:#1d2330;background:#f3f5f8}
main{max-width:1200px;margin:0 auto;padding:20px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:28px 0 10px;color:#2b3445}
.banner{border-radius:8px;padding:18px 22px;color:#fff;box-shadow:0 1px 3px rgba(0,0,0,.15)}
.banner.ok{background:#1e8e4e}.banner.warn{background:#c77700}.banner.bad{background:#c62828}
.banner .status{font-size:26px;font-weight:700;letter-spacing:.5px}
.banner .summary{font-size:16px;margin-top:6px;max-width:1050px}
.banner .meta{opacity:.9;margin-top:8px;font-size:13px}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;margin-top:16px}
.card{background:#fff;border-radius:8px;padding:12px 14px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.card .k{color:#5b6577;font-size:12px;text-transform:uppercase;letter-spacing:.4px}
.card .v{font-size:20px;font-weight:600;margin-top:2px}
.card .s{color:#5b6577;font-size:12px}
.cause{background:#fff;border-radius:8px;padding:14px 18px;margin-bottom:12px;box-shadow:0 1px 2px rgba(0,0,0,.08);border-left:6px solid #999}
.cause.critical{border-left-color:#c62828}.cause.warning{border-left-color:#e08a00}.cause.info{border-left-color:#6b7a90}
.cause h3{margin:0;font-size:16px;display:flex;align-items:center;gap:10px}
.rank{display:inline-block;width:26px;height:26px;border-radius:13px;background:#2b3445;color:#fff;text-align:center;line-height:26px;font-size:13px}
.sev{font-size:11px;text-transform:uppercase;padding:2px 7px;border-radius:10px;color:#fff;background:#6b7a90}
.sev.critical{background:#c62828}.sev.warning{background:#e08a00}
.conf{margin-left:auto;font-size:13px;color:#5b6577;display:flex;align-items:center;gap:6px}
.conf .bar{width:120px;height:8px;background:#e3e7ee;border-radius:4px;overflow:hidden}
.conf .bar span{display:block;height:100%;background:#2b63c6}
.cause p{margin:8px 0}
.remedy{background:#f6f8fb;border-radius:6px;padding:8px 12px}
.remedy p{margin:4px 0}
code{font:12.5px/1.4 "DejaVu Sans Mono",Menlo,Consolas,monospace;background:#e9edf3;padding:1px 4px;border-radius:3px;word-break:break-word}
table{border-collapse:collapse;width:100%;background:#fff;border-radius:8px;overflow:hidden;box-shadow:0 1px 2px rgba(0,0,0,.08)}
th,td{padding:6px 10px;text-align:left;border-bottom:1px solid #eef1f5;font-variant-numeric:tabular-nums}
th{background:#f0f3f7;font-weight:600;color:#2b3445;font-size:12.5px}
td.n,th.n{text-align:right}
table.evidence{box-shadow:none;margin:6px 0 8px;font-size:13px}
table.evidence td{padding:3px 10px}
.over{color:#c62828;font-weight:600}
.chart{background:#fff;border-radius:8px;padding:10px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.legend{font-size:12px;color:#5b6577;margin:4px 0 0 8px}
.legend i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px;vertical-align:middle}
.legend i.hatched{background:repeating-linear-gradient(45deg,#c62828 0 3px,rgba(198,40,40,.45) 3px 8px)}
.running{margin:6px 8px 2px;color:#c62828}
.none{background:#fff;border-radius:8px;padding:14px 18px;color:#1e8e4e;font-weight:600}
.two{display:grid;grid-template-columns:3fr 2fr;gap:16px}
footer{color:#7a8495;font-size:12px;margin:24px 0 8px}
)";

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_html(const Report& r) {
  if (needs_words(r)) return render_html(worded(r));
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    << "<title>plegscope: " << html_escape(status_label(r.status)) << " on " << html_escape(r.node)
    << "</title>"
    << "<style>" << kStyle << "</style></head><body><main>\n";

  // Banner.
  h << "<section id=\"status\" class=\"banner " << status_class(r.status) << "\" data-status=\""
    << status_name(r.status) << "\"><div class=\"status\">" << status_label(r.status)
    << "</div><div class=\"summary\">" << with_code(r.summary)
    << "</div><div class=\"meta\">node <b>" << html_escape(r.node) << "</b> · "
    << rfc3339(r.generated_at);
  if (r.blind)
    h << " · <b id=\"blind\">plegscope is blind (" << html_escape(r.blind->reason) << ")</b>";
  else if (!r.healthy)
    h << " · PLEG is not healthy: " << html_escape(r.health_message);
  if (r.healthy && r.seconds_to_unhealthy)
    h << " · unhealthy in about <b>" << elapsed(*r.seconds_to_unhealthy) << "</b> at this rate";
  if (r.relist.events_late_by_seconds)
    h << " · <b id=\"events-late\">" << html_escape(lateness(*r.relist.events_late_by_seconds))
      << "</b>";
  h << "</div>";
  if (auto stuck = stuck_pod_line(r))  // the pod that holds the node, first
    h << "<div class=\"meta\" id=\"stuck-pod\"><b>Stuck pod:</b> " << html_escape(*stuck) << "</div>";
  h << "</section>\n";

  // Key figures.
  auto card = [&](const std::string& k, const std::string& v, const std::string& sub) {
    h << "<div class=\"card\"><div class=\"k\">" << html_escape(k) << "</div><div class=\"v\">"
      << html_escape(v) << "</div><div class=\"s\">" << html_escape(sub) << "</div></div>";
  };
  h << "<div class=\"cards\">";
  card("last relist seen",
       r.relist.seconds_since_last_seen ? elapsed(*r.relist.seconds_since_last_seen) + " ago"
                                        : "never",
       "threshold " + elapsed(r.relist.threshold_seconds) +
           (r.relist.in_progress_seconds
                ? ", one running for " + elapsed(*r.relist.in_progress_seconds)
                : ""));
  const bool any_completed = std::any_of(r.timeline.begin(), r.timeline.end(),
                                         [](const TimelineEntry& e) { return !e.in_progress; });
  // The node now: the period in use (stretched while the runtime struggles),
  // and a relist still running that is longer than the completed ones.
  const std::string every =
      r.relist.stretched_period_seconds
          ? "every " + elapsed(*r.relist.stretched_period_seconds) + " (stretched from " +
                elapsed(r.relist.period_seconds) + ")"
          : "every " + elapsed(r.relist.period_seconds);
  const std::string completed = any_completed ? elapsed(r.relist.duration_p50_seconds) + " p50, " +
                                                    elapsed(r.relist.duration_p99_seconds) + " p99"
                                              : "none completed";
  const auto& running = r.relist.in_progress_seconds;
  if (running && (!any_completed || *running > r.relist.duration_p99_seconds))
    card("relist duration", elapsed(*running) + " and running", completed + "; " + every);
  else if (any_completed)
    card("relist duration", elapsed(r.relist.duration_p50_seconds) + " p50",
         elapsed(r.relist.duration_p99_seconds) + " p99, " + every);
  else
    card("relist duration", "none completed", every);
  card("containers", std::to_string(r.pods.containers),
       std::to_string(r.pods.sandboxes) + " sandboxes, " +
           std::to_string(r.pods.exited_containers) + " exited, " +
           std::to_string(r.pods.pods_to_reinspect) + " to reinspect");
  card("runtime", r.runtime.name.empty() ? "unknown" : r.runtime.name + " " + r.runtime.version,
       r.runtime.endpoint);
  h << "</div>\n";

  // Causes.
  h << "<h2>Causes, most likely first</h2>\n<section id=\"causes\">";
  if (r.causes.empty())
    h << "<div class=\"none\">No cause: every rule found its signals within thresholds.</div>";
  int rank = 0;
  for (const auto& c : r.causes) {
    h << "<article class=\"cause " << severity_name(c.severity) << "\" data-cause=\""
      << cause_name(c.id) << "\"><h3><span class=\"rank\">" << ++rank << "</span>"
      << cause_name(c.id) << " <span class=\"sev " << severity_name(c.severity) << "\">"
      << severity_name(c.severity) << "</span><span class=\"conf\">confidence "
      << fmt("%.2f", c.confidence)
      << "<span class=\"bar\"><span style=\"width:" << fmt("%.0f", c.confidence * 100)
      << "%\"></span></span></span></h3>";
    h << "<p>" << with_code(c.summary) << "</p>";
    h << "<table class=\"evidence\"><tr><th>evidence</th><th class=\"n\">value</th><th "
         "class=\"n\">threshold</th></tr>";
    for (const auto& e : c.evidence) {
      bool over = e.threshold && e.value > *e.threshold;
      h << "<tr><td><code>" << html_escape(e.signal) << "</code></td><td class=\"n"
        << (over ? " over" : "") << "\">" << number(e.value) << "</td><td class=\"n\">"
        << (e.threshold ? number(*e.threshold) : "") << "</td></tr>";
    }
    h << "</table><p class=\"advice\"><b>Advice:</b> <code>" << advice_name(c.advice) << "</code></p>";
    h << "<div class=\"remedy\"><b>Remedy.</b>";
    for (const auto& part : remedy_parts(c.remedy)) h << "<p>" << with_code(part) << "</p>";
    h << "</div></article>\n";
  }
  h << "</section>\n";

  // Charts.
  h << "<h2>Relist duration (log scale) against the PLEG threshold</h2><div class=\"chart\">"
    << relist_duration_chart(r)
    << "<div class=\"legend\"><i style=\"background:#2b63c6\"></i>relist<i "
       "style=\"background:#6b8fd6\"></i>first relist"
       "<i style=\"background:#c62828;opacity:.25\"></i>failed relist<i "
       "class=\"hatched\"></i>relist in progress"
       "<i style=\"background:#c62828;height:2px\"></i>threshold"
       "<i style=\"background:#7b3fb5;width:2px\"></i>kubelet's journal mark"
       "<i style=\"background:#e08a00;width:2px\"></i>runtime's journal mark</div>";
  if (const TimelineEntry* now = relist_in_progress(r))
    h << "<p id=\"relist-in-progress\" class=\"running\"><b>Relist in progress:</b> "
      << html_escape(describe_in_progress(*now)) << "</p>";
  // Journal: a runtime restart beside the failed relists.
  if (auto note = runtime_restart_note(r))
    h << "<p id=\"runtime-restart\" class=\"running\">" << html_escape(*note) << "</p>";
  h << "</div>\n";
  // Journal: the kubelet's and the runtime's own lines, under the timeline.
  h << "<h2>The kubelet's and the runtime's words (journal)</h2><div class=\"chart\" "
       "id=\"journal\" data-reachable=\""
    << (r.journal_source.reachable ? "true" : "false") << "\"><p class=\"legend\">"
    << html_escape(journal_source_line(r)) << "</p>";
  if (!r.journal.empty()) {
    h << "<table class=\"evidence\"><tr><th>time</th><th>unit</th><th>mark</th><th>message</th></tr>";
    for (auto it = r.journal.rbegin(); it != r.journal.rend(); ++it)
      h << "<tr data-kind=\"" << html_escape(it->kind) << "\"><td>" << rfc3339(it->time)
        << "</td><td><code>" << html_escape(it->unit) << "</code></td><td>"
        << html_escape(it->kind) << "</td><td>" << html_escape(it->message) << "</td></tr>";
    h << "</table>";
  }
  h << "</div>\n";
  h << "<h2>Where each relist spends its time</h2><div class=\"chart\">" << list_status_chart(r)
    << "<div class=\"legend\"><i style=\"background:#2b63c6\"></i>list calls (ListPodSandbox + "
       "ListContainers)"
       "<i style=\"background:#e08a00\"></i>per-pod status inspection</div></div>\n";

  h << beside_html(r);  // the kubelet and the runtime's metrics

  // Operations and pods.
  h << "<div class=\"two\"><div><h2>CRI operations</h2><table "
       "id=\"operations\"><tr><th>operation</th><th class=\"n\">count</th>"
       "<th class=\"n\">errors</th><th class=\"n\">p50</th><th class=\"n\">p99</th><th "
       "class=\"n\">max</th>"
       "<th class=\"n\">in flight</th><th class=\"n\">oldest</th></tr>";
  for (const auto& [name, o] : r.runtime.operations)
    h << "<tr><td><code>" << html_escape(name) << "</code></td><td class=\"n\">" << o.count
      << "</td><td class=\"n" << (o.errors ? " over" : "") << "\">" << o.errors
      << "</td><td class=\"n\">" << elapsed(o.p50_seconds) << "</td><td class=\"n\">"
      << elapsed(o.p99_seconds) << "</td><td class=\"n\">" << elapsed(o.max_seconds)
      << "</td><td class=\"n" << (o.in_flight ? " over" : "") << "\">" << o.in_flight
      << "</td><td class=\"n\">" << (o.in_flight ? elapsed(o.oldest_in_flight_seconds) : "–")
      << "</td></tr>";
  h << "</table></div><div><h2>Top pods by events</h2><table id=\"top-pods\"><tr><th>pod</th><th "
       "class=\"n\">events</th></tr>";
  if (r.events.top_pods.empty()) h << "<tr><td colspan=\"2\">no events in the timeline</td></tr>";
  for (const auto& p : r.events.top_pods)
    h << "<tr><td>" << html_escape(p.namespace_) << "/" << html_escape(p.name)
      << "</td><td class=\"n\">" << p.events << "</td></tr>";
  h << "</table>";
  // Event lag: the window's figures and the pods that saw changes latest.
  // Marked by the harm the kubelet's lag does: the agent's own back-off
  // (a stretched period) is no harm to the node.
  const auto harm = lag_harm(r);
  h << "<h2>Event lag</h2><table id=\"event-lag\" data-material=\""
    << (harm && lag_is_material(r) ? "true" : "false") << "\"><tr><td colspan=\"2\""
    << (harm && lag_is_material(r) ? " class=\"over\"" : "") << ">" << html_escape(lag_figures(r));
  if (harm) h << ": " << html_escape(*harm);
  h << "</td></tr>";
  if (auto evented = evented_lag_text(r))
    h << "<tr id=\"evented-lag\"><td colspan=\"2\"" << (evented_lag_is_material(r) ? " class=\"over\"" : "")
      << ">" << html_escape(*evented) << "</td></tr>";
  for (const auto& pod : r.event_lag.worst_pods)
    h << "<tr><td>" << html_escape(pod.namespace_) << "/" << html_escape(pod.name)
      << (pod.container.empty() ? "" : " (" + html_escape(pod.container) + ")") << " "
      << html_escape(pod.event_type) << "</td><td class=\"n\">" << elapsed(pod.lag_seconds)
      << "</td></tr>";
  h << "</table>";
  h << "<h2>Events and node</h2><table><tr><td>events per relist, p99</td><td class=\"n\">"
    << number(r.events.per_relist_p99)
    << "</td></tr><tr><td>events discarded (channel full)</td><td class=\"n"
    << (r.events.discarded_total ? " over" : "") << "\">" << r.events.discarded_total
    << "</td></tr>";
  for (const auto& [type, n] : r.events.by_type)
    h << "<tr><td>" << html_escape(type) << "</td><td class=\"n\">" << n << "</td></tr>";
  const auto& p = r.node_pressure;
  auto pct = [](const std::optional<double>& v) {
    return v ? fmt("%.1f%%", *v) : std::string("n/a (no PSI)");
  };
  h << "<tr><td>CPU pressure (some, avg10)</td><td class=\"n\">" << pct(p.cpu_some_avg10)
    << "</td></tr>"
    << "<tr><td>IO pressure (some, avg10)</td><td class=\"n\">" << pct(p.io_some_avg10)
    << "</td></tr>"
    << "<tr><td>memory pressure (some, avg10)</td><td class=\"n\">" << pct(p.memory_some_avg10)
    << "</td></tr>"
    << "<tr><td>load1</td><td class=\"n\">" << (p.load1 ? fmt("%.2f", *p.load1) : "n/a")
    << "</td></tr>"
    << "<tr><td>pids / pid_max</td><td class=\"n\">" << (p.pids ? std::to_string(*p.pids) : "n/a")
    << " / " << (p.pid_max ? std::to_string(*p.pid_max) : "n/a")
    << "</td></tr></table></div></div>\n";
  h << host_html(r);

  h << "<footer>plegscope " << PLEGSCOPE_VERSION
    << " · JSON: <code>/diagnose</code> · text: "
       "<code>/diagnose?format=text</code> · metrics: <code>pleg_diagnosis_cause</code></footer>";
  h << "</main></body></html>\n";
  return h.str();
}

}  // namespace plegscope
