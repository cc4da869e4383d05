#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/text.h"
#include "report/format.h"
#include "report/time_format.h"

namespace plegscope {
namespace {

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
.none{background:#fff;border-radius:8px;padding:14px 18px;color:#1e8e4e;font-weight:600}
.two{display:grid;grid-template-columns:3fr 2fr;gap:16px}
footer{color:#7a8495;font-size:12px;margin:24px 0 8px}
)";

// Relist duration over time, log scale so milliseconds and the 3-minute
// threshold fit one chart; failed relists in red, a relist still running
// as a hatched bar reaching to now.
std::string duration_chart(const Report& r) {
  const double W = 1160, H = 280, left = 64, right = 16, top = 14, bottom = 34;
  const double pw = W - left - right, ph = H - top - bottom;
  double t_end = std::chrono::duration<double>(r.generated_at.time_since_epoch()).count();
  double t_start = t_end - 20;  // at least 20 s, else the whole timeline
  if (!r.timeline.empty())
    t_start = std::min(t_start, std::chrono::duration<double>(r.timeline.front().start.time_since_epoch()).count());
  double span = std::max(1.0, t_end - t_start);
  double ymax = r.relist.threshold_seconds * 1.5;
  for (const auto& e : r.timeline) ymax = std::max(ymax, e.duration_seconds * 1.2);
  if (r.relist.in_progress_seconds) ymax = std::max(ymax, *r.relist.in_progress_seconds * 1.2);
  const double ymin = 0.001;
  auto y = [&](double v) {
    v = std::max(ymin, v);
    return top + ph - ph * (std::log10(v / ymin) / std::log10(ymax / ymin));
  };
  auto x = [&](double t) { return left + pw * (t - t_start) / span; };
  double bar = std::max(1.2, pw * r.relist.period_seconds / span * 0.7);

  std::ostringstream s;
  s << "<svg id=\"relist-duration-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << W << " " << H
    << "\" width=\"100%\" role=\"img\" aria-label=\"relist duration over time\">";
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"#fbfcfd\" stroke=\"#dde2ea\"/>";
  // Decade grid.
  const std::pair<double, const char*> ticks[] = {{0.001, "1ms"}, {0.01, "10ms"}, {0.1, "100ms"}, {1, "1s"},
                                                  {10, "10s"},    {60, "1m"},     {600, "10m"},   {3600, "1h"}};
  for (const auto& [v, label] : ticks) {
    if (v > ymax) break;
    s << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << fmt("%.1f", y(v)) << "\" y2=\""
      << fmt("%.1f", y(v)) << "\" stroke=\"#e8ecf2\"/>";
    s << "<text x=\"" << left - 6 << "\" y=\"" << fmt("%.1f", y(v) + 4) << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6577\">"
      << label << "</text>";
  }
  // Time axis: seconds before the report.
  int step = span > 1200 ? 300 : span > 300 ? 60 : span > 120 ? 30 : span > 40 ? 10 : 5;
  for (int ago = 0; ago <= span; ago += step) {
    double xx = x(t_end - ago);
    s << "<line x1=\"" << fmt("%.1f", xx) << "\" x2=\"" << fmt("%.1f", xx) << "\" y1=\"" << top + ph << "\" y2=\""
      << top + ph + 4 << "\" stroke=\"#9aa4b2\"/>";
    s << "<text x=\"" << fmt("%.1f", xx) << "\" y=\"" << top + ph + 17 << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#5b6577\">"
      << (ago == 0 ? std::string("now") : "-" + (ago < 60 ? std::to_string(ago) + "s" : format_seconds(ago))) << "</text>";
  }
  // Bars.
  for (const auto& e : r.timeline) {
    double t = std::chrono::duration<double>(e.start.time_since_epoch()).count();
    double xx = x(t), yy = y(e.duration_seconds);
    if (e.error) {
      s << "<rect class=\"relist failed\" x=\"" << fmt("%.1f", xx) << "\" y=\"" << top << "\" width=\"" << fmt("%.1f", bar)
        << "\" height=\"" << ph << "\" fill=\"#c62828\" opacity=\"0.25\"><title>failed: " << html_escape(grpc_code_name(*e.error))
        << "</title></rect>";
      continue;
    }
    s << "<rect class=\"relist\" x=\"" << fmt("%.1f", xx) << "\" y=\"" << fmt("%.1f", yy) << "\" width=\""
      << fmt("%.1f", bar) << "\" height=\"" << fmt("%.1f", std::max(1.0, top + ph - yy))
      << "\" fill=\"#2b63c6\"><title>" << format_seconds(e.duration_seconds) << ", " << e.events << " events</title></rect>";
  }
  if (r.relist.in_progress_seconds) {
    double x0 = x(t_end - *r.relist.in_progress_seconds), yy = y(*r.relist.in_progress_seconds);
    s << "<rect class=\"relist in-progress\" x=\"" << fmt("%.1f", x0) << "\" y=\"" << fmt("%.1f", yy) << "\" width=\""
      << fmt("%.1f", std::max(bar, x(t_end) - x0)) << "\" height=\"" << fmt("%.1f", top + ph - yy)
      << "\" fill=\"#c62828\" opacity=\"0.55\"/>";
    // Inside the bar when it is wide enough, else just left of it.
    bool inside = x(t_end) - x0 > 250;
    s << "<text x=\"" << fmt("%.1f", inside ? x(t_end) - 8 : x0 - 6) << "\" y=\""
      << fmt("%.1f", std::min(top + ph - 8, yy + 30)) << "\" font-size=\"13\" text-anchor=\"end\" fill=\""
      << (inside ? "#fff" : "#c62828") << "\" font-weight=\"700\">relist in progress for "
      << format_seconds(*r.relist.in_progress_seconds) << "</text>";
  }
  // Threshold line.
  double ty = y(r.relist.threshold_seconds);
  s << "<line id=\"threshold-line\" x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << fmt("%.1f", ty) << "\" y2=\""
    << fmt("%.1f", ty) << "\" stroke=\"#c62828\" stroke-width=\"2\" stroke-dasharray=\"8 5\"/>";
  s << "<text x=\"" << left + 8 << "\" y=\"" << fmt("%.1f", ty - 6) << "\" font-size=\"12\" fill=\"#c62828\" font-weight=\"600\">"
    << "PLEG threshold " << format_seconds(r.relist.threshold_seconds) << "</text>";
  s << "</svg>";
  return s.str();
}

// Time in list calls vs. per-pod status inspection, stacked per relist.
std::string stacked_chart(const Report& r) {
  const double W = 1160, H = 200, left = 64, right = 16, top = 10, bottom = 22;
  const double pw = W - left - right, ph = H - top - bottom;
  size_t n = std::min<size_t>(r.timeline.size(), 300);
  size_t from = r.timeline.size() - n;
  double ymax = 0.001;
  for (size_t i = from; i < r.timeline.size(); ++i)
    ymax = std::max(ymax, r.timeline[i].list_seconds + r.timeline[i].status_seconds);
  // Round gridlines: a 1-2-5 step giving at most five of them.
  double step = std::pow(10, std::floor(std::log10(ymax / 4)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (ymax / (step * m) <= 4) {
      step *= m;
      break;
    }
  int lines = static_cast<int>(std::ceil(ymax / step));
  ymax = step * lines;
  double slot = n ? pw / n : pw;
  double bar = std::min(24.0, std::max(1.0, slot * 0.8));
  std::ostringstream s;
  s << "<svg id=\"list-status-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << W << " " << H
    << "\" width=\"100%\" role=\"img\" aria-label=\"list vs status time per relist\">";
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"#fbfcfd\" stroke=\"#dde2ea\"/>";
  for (int k = 0; k <= lines; ++k) {
    double v = step * k, yy = top + ph - ph * v / ymax;
    s << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << fmt("%.1f", yy) << "\" y2=\"" << fmt("%.1f", yy)
      << "\" stroke=\"#e8ecf2\"/><text x=\"" << left - 6 << "\" y=\"" << fmt("%.1f", yy + 4)
      << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6577\">" << format_seconds(v) << "</text>";
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& e = r.timeline[from + i];
    double xx = left + slot * i + (slot - bar) / 2;
    double hl = ph * e.list_seconds / ymax, hs = ph * e.status_seconds / ymax;
    s << "<rect class=\"list\" x=\"" << fmt("%.1f", xx) << "\" y=\"" << fmt("%.1f", top + ph - hl) << "\" width=\""
      << fmt("%.1f", bar) << "\" height=\"" << fmt("%.1f", hl) << "\" fill=\"#2b63c6\"/>";
    s << "<rect class=\"status\" x=\"" << fmt("%.1f", xx) << "\" y=\"" << fmt("%.1f", top + ph - hl - hs) << "\" width=\""
      << fmt("%.1f", bar) << "\" height=\"" << fmt("%.1f", hs) << "\" fill=\"#e08a00\"/>";
  }
  s << "<text x=\"" << left + pw << "\" y=\"" << H - 6 << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6577\">last "
    << n << " relists, oldest left</text>";
  s << "</svg>";
  return s.str();
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render_html(const Report& r) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    << "<title>plegscope: " << html_escape(status_label(r.status)) << " on " << html_escape(r.node) << "</title>"
    << "<style>" << kStyle << "</style></head><body><main>\n";

  // Banner.
  h << "<section id=\"status\" class=\"banner " << status_class(r.status) << "\" data-status=\"" << status_name(r.status)
    << "\"><div class=\"status\">" << status_label(r.status) << "</div><div class=\"summary\">" << with_code(r.summary)
    << "</div><div class=\"meta\">node <b>" << html_escape(r.node) << "</b> · " << rfc3339(r.generated_at);
  if (!r.healthy) h << " · PLEG is not healthy: " << html_escape(r.health_message);
  if (r.healthy && r.seconds_to_unhealthy)
    h << " · unhealthy in about <b>" << format_seconds(*r.seconds_to_unhealthy) << "</b> at this rate";
  h << "</div></section>\n";

  // Key figures.
  auto card = [&](const std::string& k, const std::string& v, const std::string& sub) {
    h << "<div class=\"card\"><div class=\"k\">" << html_escape(k) << "</div><div class=\"v\">" << html_escape(v)
      << "</div><div class=\"s\">" << html_escape(sub) << "</div></div>";
  };
  h << "<div class=\"cards\">";
  card("last relist seen", r.relist.seconds_since_last_seen ? format_seconds(*r.relist.seconds_since_last_seen) + " ago" : "never",
       "threshold " + format_seconds(r.relist.threshold_seconds) +
           (r.relist.in_progress_seconds ? ", one running for " + format_seconds(*r.relist.in_progress_seconds) : ""));
  card("relist duration", format_seconds(r.relist.duration_p50_seconds) + " p50",
       format_seconds(r.relist.duration_p99_seconds) + " p99, every " + format_seconds(r.relist.period_seconds));
  card("containers", std::to_string(r.pods.containers),
       std::to_string(r.pods.sandboxes) + " sandboxes, " + std::to_string(r.pods.exited_containers) + " exited, " +
           std::to_string(r.pods.pods_to_reinspect) + " to reinspect");
  card("runtime", r.runtime.name.empty() ? "unknown" : r.runtime.name + " " + r.runtime.version, r.runtime.endpoint);
  h << "</div>\n";

  // Causes.
  h << "<h2>Causes, most likely first</h2>\n<section id=\"causes\">";
  if (r.causes.empty()) h << "<div class=\"none\">No cause: every rule found its signals within thresholds.</div>";
  int rank = 0;
  for (const auto& c : r.causes) {
    h << "<article class=\"cause " << severity_name(c.severity) << "\" data-cause=\"" << cause_name(c.id) << "\"><h3><span class=\"rank\">"
      << ++rank << "</span>" << cause_name(c.id) << " <span class=\"sev " << severity_name(c.severity) << "\">"
      << severity_name(c.severity) << "</span><span class=\"conf\">confidence " << fmt("%.2f", c.confidence)
      << "<span class=\"bar\"><span style=\"width:" << fmt("%.0f", c.confidence * 100) << "%\"></span></span></span></h3>";
    h << "<p>" << with_code(c.summary) << "</p>";
    h << "<table class=\"evidence\"><tr><th>evidence</th><th class=\"n\">value</th><th class=\"n\">threshold</th></tr>";
    for (const auto& e : c.evidence) {
      bool over = e.threshold && e.value > *e.threshold;
      h << "<tr><td><code>" << html_escape(e.signal) << "</code></td><td class=\"n" << (over ? " over" : "") << "\">"
        << number(e.value) << "</td><td class=\"n\">" << (e.threshold ? number(*e.threshold) : "") << "</td></tr>";
    }
    h << "</table><div class=\"remedy\"><b>Remedy.</b> " << with_code(c.remedy) << "</div></article>\n";
  }
  h << "</section>\n";

  // Charts.
  h << "<h2>Relist duration (log scale) against the PLEG threshold</h2><div class=\"chart\">" << duration_chart(r)
    << "<div class=\"legend\"><i style=\"background:#2b63c6\"></i>relist<i style=\"background:#c62828;opacity:.35\"></i>"
       "failed relist / relist in progress<i style=\"background:#c62828;height:2px\"></i>threshold</div></div>\n";
  h << "<h2>Where each relist spends its time</h2><div class=\"chart\">" << stacked_chart(r)
    << "<div class=\"legend\"><i style=\"background:#2b63c6\"></i>list calls (ListPodSandbox + ListContainers)"
       "<i style=\"background:#e08a00\"></i>per-pod status inspection</div></div>\n";

  // Operations and pods.
  h << "<div class=\"two\"><div><h2>CRI operations</h2><table id=\"operations\"><tr><th>operation</th><th class=\"n\">count</th>"
       "<th class=\"n\">errors</th><th class=\"n\">p50</th><th class=\"n\">p99</th><th class=\"n\">max</th>"
       "<th class=\"n\">in flight</th><th class=\"n\">oldest</th></tr>";
  for (const auto& [name, o] : r.runtime.operations)
    h << "<tr><td><code>" << html_escape(name) << "</code></td><td class=\"n\">" << o.count << "</td><td class=\"n"
      << (o.errors ? " over" : "") << "\">" << o.errors << "</td><td class=\"n\">" << format_seconds(o.p50_seconds)
      << "</td><td class=\"n\">" << format_seconds(o.p99_seconds) << "</td><td class=\"n\">" << format_seconds(o.max_seconds)
      << "</td><td class=\"n" << (o.in_flight ? " over" : "") << "\">" << o.in_flight << "</td><td class=\"n\">"
      << (o.in_flight ? format_seconds(o.oldest_in_flight_seconds) : "–") << "</td></tr>";
  h << "</table></div><div><h2>Top pods by events</h2><table id=\"top-pods\"><tr><th>pod</th><th class=\"n\">events</th></tr>";
  if (r.events.top_pods.empty()) h << "<tr><td colspan=\"2\">no events in the timeline</td></tr>";
  for (const auto& p : r.events.top_pods)
    h << "<tr><td>" << html_escape(p.namespace_) << "/" << html_escape(p.name) << "</td><td class=\"n\">" << p.events
      << "</td></tr>";
  h << "</table>";
  h << "<h2>Events and node</h2><table><tr><td>events per relist, p99</td><td class=\"n\">" << number(r.events.per_relist_p99)
    << "</td></tr><tr><td>events discarded (channel full)</td><td class=\"n" << (r.events.discarded_total ? " over" : "")
    << "\">" << r.events.discarded_total << "</td></tr>";
  for (const auto& [type, n] : r.events.by_type)
    h << "<tr><td>" << html_escape(type) << "</td><td class=\"n\">" << n << "</td></tr>";
  const auto& p = r.node_pressure;
  auto pct = [](const std::optional<double>& v) { return v ? fmt("%.1f%%", *v) : std::string("n/a (no PSI)"); };
  h << "<tr><td>CPU pressure (some, avg10)</td><td class=\"n\">" << pct(p.cpu_some_avg10) << "</td></tr>"
    << "<tr><td>IO pressure (some, avg10)</td><td class=\"n\">" << pct(p.io_some_avg10) << "</td></tr>"
    << "<tr><td>memory pressure (some, avg10)</td><td class=\"n\">" << pct(p.memory_some_avg10) << "</td></tr>"
    << "<tr><td>load1</td><td class=\"n\">" << (p.load1 ? fmt("%.2f", *p.load1) : "n/a") << "</td></tr>"
    << "<tr><td>pids / pid_max</td><td class=\"n\">" << (p.pids ? std::to_string(*p.pids) : "n/a") << " / "
    << (p.pid_max ? std::to_string(*p.pid_max) : "n/a") << "</td></tr></table></div></div>\n";

  h << "<footer>plegscope " << PLEGSCOPE_VERSION << " · JSON: <code>/diagnose</code> · text: "
       "<code>/diagnose?format=text</code> · metrics: <code>pleg_diagnosis_cause</code></footer>";
  h << "</main></body></html>\n";
  return h.str();
}

}  // namespace plegscope
