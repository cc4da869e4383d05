#include "report/charts.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/format.h"
#include "report/html.h"
#include "report/journal_text.h"
#include "report/text.h"

namespace plegscope {
namespace {

using text::elapsed;
using text::fmt;

double epoch_seconds(TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// The relist running now: the timeline's last entry, or (from an agent that
// does not send one) just its age.
struct Running {
  double seconds = 0;
  const TimelineEntry* entry = nullptr;
};
std::optional<Running> running(const Report& r) {
  if (const TimelineEntry* e = relist_in_progress(r)) return Running{e->duration_seconds, e};
  if (r.relist.in_progress_seconds) return Running{*r.relist.in_progress_seconds, nullptr};
  return std::nullopt;
}

// A hatched fill for the relist in progress, so it never reads as a finished bar.
std::string hatch(const char* id, const char* color) {
  return std::string("<defs><pattern id=\"") + id +
         "\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\">"
         "<rect width=\"8\" height=\"8\" fill=\"" +
         color +
         "\" opacity=\"0.45\"/>"
         "<rect width=\"3\" height=\"8\" fill=\"" +
         color + "\" opacity=\"0.9\"/></pattern></defs>";
}

// The relist chart's plot area: seconds before the report across, relist
// seconds up on a log scale from 1 ms.
struct RelistPlot {
  static constexpr double W = 1160, H = 280, left = 64, right = 16, top = 14, bottom = 34;
  static constexpr double pw = W - left - right, ph = H - top - bottom, ymin = 0.001;
  double t_start = 0, t_end = 0, span = 1, ymax = 1, bar = 1;

  double x(double t) const { return left + pw * (t - t_start) / span; }
  double y(double v) const {
    v = std::max(ymin, v);
    return top + ph - ph * (std::log10(v / ymin) / std::log10(ymax / ymin));
  }
};

RelistPlot relist_plot(const Report& r, const std::optional<Running>& now) {
  RelistPlot p;
  p.t_end = epoch_seconds(r.generated_at);
  p.t_start = p.t_end - 20;  // at least 20 s, else the whole timeline
  if (!r.timeline.empty()) p.t_start = std::min(p.t_start, epoch_seconds(r.timeline.front().start));
  if (now) p.t_start = std::min(p.t_start, p.t_end - now->seconds);
  p.span = std::max(1.0, p.t_end - p.t_start);
  p.ymax = r.relist.threshold_seconds * 1.5;
  for (const auto& e : r.timeline) p.ymax = std::max(p.ymax, e.duration_seconds * 1.2);
  if (now) p.ymax = std::max(p.ymax, now->seconds * 1.2);
  p.bar = std::max(1.2, RelistPlot::pw * r.relist.period_seconds / p.span * 0.7);
  return p;
}

// The decade grid up the side and the seconds before the report across.
void draw_relist_axes(std::ostringstream& s, const RelistPlot& p) {
  const double left = p.left, top = p.top, pw = p.pw, ph = p.ph;
  const std::pair<double, const char*> ticks[] = {{0.001, "1ms"}, {0.01, "10ms"}, {0.1, "100ms"},
                                                  {1, "1s"},      {10, "10s"},    {60, "1m"},
                                                  {600, "10m"},   {3600, "1h"}};
  for (const auto& [v, label] : ticks) {
    if (v > p.ymax) break;
    s << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << fmt("%.1f", p.y(v))
      << "\" y2=\"" << fmt("%.1f", p.y(v)) << "\" stroke=\"#e8ecf2\"/>";
    s << "<text x=\"" << left - 6 << "\" y=\"" << fmt("%.1f", p.y(v) + 4)
      << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6577\">" << label << "</text>";
  }
  int step = p.span > 1200 ? 300 : p.span > 300 ? 60 : p.span > 120 ? 30 : p.span > 40 ? 10 : 5;
  for (int ago = 0; ago <= p.span; ago += step) {
    double xx = p.x(p.t_end - ago);
    s << "<line x1=\"" << fmt("%.1f", xx) << "\" x2=\"" << fmt("%.1f", xx) << "\" y1=\"" << top + ph
      << "\" y2=\"" << top + ph + 4 << "\" stroke=\"#9aa4b2\"/>";
    s << "<text x=\"" << fmt("%.1f", xx) << "\" y=\"" << top + ph + 17
      << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#5b6577\">"
      << (ago == 0 ? "now" : "-" + elapsed(ago)) << "</text>";
  }
}

// Completed relists; the one in progress is drawn by draw_running_relist.
void draw_completed_relists(std::ostringstream& s, const RelistPlot& p, const Report& r) {
  const double top = p.top, ph = p.ph;
  for (const auto& e : r.timeline) {
    if (e.in_progress) continue;
    double xx = p.x(epoch_seconds(e.start)), yy = p.y(e.duration_seconds);
    if (e.error) {
      s << "<rect class=\"relist failed\" x=\"" << fmt("%.1f", xx) << "\" y=\"" << top
        << "\" width=\"" << fmt("%.1f", p.bar) << "\" height=\"" << ph
        << "\" fill=\"#c62828\" opacity=\"0.25\"><title>failed: "
        << html_escape(grpc_code_name(*e.error)) << "</title></rect>";
      continue;
    }
    s << "<rect class=\"relist\" x=\"" << fmt("%.1f", xx) << "\" y=\"" << fmt("%.1f", yy)
      << "\" width=\"" << fmt("%.1f", p.bar) << "\" height=\""
      << fmt("%.1f", std::max(1.0, top + ph - yy)) << "\" fill=\""
      << (e.initial ? "#6b8fd6" : "#2b63c6") << "\"><title>"
      << (e.initial ? "first relist (every pod inspected): " : "") << elapsed(e.duration_seconds)
      << ", " << text::count(e.events, "event", "events") << "</title></rect>";
  }
}

void draw_running_relist(std::ostringstream& s, const RelistPlot& p, const Running& now) {
  const double left = p.left, top = p.top, ph = p.ph;
  double x0 = p.x(p.t_end - now.seconds), yy = p.y(now.seconds);
  std::string what = now.entry ? describe_in_progress(*now.entry) : "running for " + elapsed(now.seconds);
  s << "<rect class=\"relist in-progress\" x=\"" << fmt("%.1f", x0) << "\" y=\"" << fmt("%.1f", yy)
    << "\" width=\"" << fmt("%.1f", std::max(p.bar, p.x(p.t_end) - x0))
    << "\" height=\"" << fmt("%.1f", std::max(1.0, top + ph - yy))
    << "\" fill=\"url(#running-hatch)\" stroke=\"#c62828\"><title>"
    << "relist in progress: " << html_escape(what) << "</title></rect>";
  // Inside the bar when it is wide enough, else just left of it.
  bool inside = p.x(p.t_end) - x0 > 250;
  s << "<text x=\"" << fmt("%.1f", inside ? p.x(p.t_end) - 8 : std::max(left + 240, x0 - 6)) << "\" y=\""
    << fmt("%.1f", std::min(top + ph - 8, yy + 30)) << "\" font-size=\"13\" text-anchor=\"end\" fill=\""
    << (inside ? "#fff" : "#c62828") << "\" font-weight=\"700\" paint-order=\"stroke\" stroke=\""
    << (inside ? "#c62828" : "#fbfcfd") << "\" stroke-width=\"3\">relist in progress for "
    << elapsed(now.seconds) << "</text>";
}

void draw_threshold(std::ostringstream& s, const RelistPlot& p, const Report& r) {
  const double left = p.left, pw = p.pw;
  double ty = p.y(r.relist.threshold_seconds);
  s << "<line id=\"threshold-line\" x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << fmt("%.1f", ty)
    << "\" y2=\"" << fmt("%.1f", ty) << "\" stroke=\"#c62828\" stroke-width=\"2\" stroke-dasharray=\"8 5\"/>";
  s << "<text x=\"" << left + 8 << "\" y=\"" << fmt("%.1f", ty - 6)
    << "\" font-size=\"12\" fill=\"#c62828\" font-weight=\"600\">PLEG threshold "
    << elapsed(r.relist.threshold_seconds) << "</text>";
}

// The kubelet's and the runtime's journal marks in the chart's span, as
// dashed vertical lines beside the relists (purple: the kubelet's words,
// orange: the runtime's unit).
void draw_journal_marks(std::ostringstream& s, const RelistPlot& p, const Report& r) {
  const double top = p.top, ph = p.ph;
  for (const auto& m : r.journal) {
    double t = epoch_seconds(m.time);
    if (t < p.t_start || t > p.t_end) continue;
    bool runtime = is_runtime_restart_mark(m, r) || m.unit != r.journal_source.kubelet_unit;
    const char* color = runtime ? "#e08a00" : "#7b3fb5";
    double xx = p.x(t);
    s << "<g class=\"journal-mark\" data-kind=\"" << html_escape(m.kind) << "\"><line x1=\"" << fmt("%.1f", xx)
      << "\" x2=\"" << fmt("%.1f", xx) << "\" y1=\"" << top << "\" y2=\"" << top + ph << "\" stroke=\"" << color
      << "\" stroke-width=\"1.5\" stroke-dasharray=\"3 3\"/>"
      << "<path d=\"M" << fmt("%.1f", xx - 5) << " " << top << " L" << fmt("%.1f", xx + 5) << " " << top << " L"
      << fmt("%.1f", xx) << " " << top + 8 << " Z\" fill=\"" << color << "\"/><title>"
      << html_escape(m.unit + " " + m.kind + ": " + m.message) << "</title></g>";
  }
}

}  // namespace

std::string relist_duration_chart(const Report& r) {
  const auto now = running(r);
  const RelistPlot p = relist_plot(r, now);
  std::ostringstream s;
  s << "<svg id=\"relist-duration-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << p.W << " "
    << p.H << "\" width=\"100%\" role=\"img\" aria-label=\"relist duration over time\">"
    << hatch("running-hatch", "#c62828");
  s << "<rect x=\"" << p.left << "\" y=\"" << p.top << "\" width=\"" << p.pw << "\" height=\"" << p.ph
    << "\" fill=\"#fbfcfd\" stroke=\"#dde2ea\"/>";
  draw_relist_axes(s, p);
  draw_completed_relists(s, p, r);
  if (now) draw_running_relist(s, p, *now);
  draw_threshold(s, p, r);
  draw_journal_marks(s, p, r);
  s << "</svg>";
  return s.str();
}

std::string list_status_chart(const Report& r) {
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
  s << "<svg id=\"list-status-chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << W
    << " " << H << "\" width=\"100%\" role=\"img\" aria-label=\"list vs status time per relist\">"
    << hatch("list-hatch", "#2b63c6") << hatch("status-hatch", "#e08a00");
  s << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"#fbfcfd\" stroke=\"#dde2ea\"/>";
  for (int k = 0; k <= lines; ++k) {
    double v = step * k, yy = top + ph - ph * v / ymax;
    s << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << fmt("%.1f", yy)
      << "\" y2=\"" << fmt("%.1f", yy) << "\" stroke=\"#e8ecf2\"/><text x=\"" << left - 6
      << "\" y=\"" << fmt("%.1f", yy + 4)
      << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6577\">" << elapsed(v) << "</text>";
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& e = r.timeline[from + i];
    const std::string running = e.in_progress ? " in-progress" : "";
    double xx = left + slot * i + (slot - bar) / 2;
    double hl = ph * e.list_seconds / ymax, hs = ph * e.status_seconds / ymax;
    s << "<rect class=\"list" << running << "\" x=\"" << fmt("%.1f", xx) << "\" y=\""
      << fmt("%.1f", top + ph - hl) << "\" width=\"" << fmt("%.1f", bar) << "\" height=\""
      << fmt("%.1f", hl) << "\" fill=\"" << (e.in_progress ? "url(#list-hatch)" : "#2b63c6")
      << "\"/>";
    s << "<rect class=\"status" << running << "\" x=\"" << fmt("%.1f", xx) << "\" y=\""
      << fmt("%.1f", top + ph - hl - hs) << "\" width=\"" << fmt("%.1f", bar) << "\" height=\""
      << fmt("%.1f", hs) << "\" fill=\"" << (e.in_progress ? "url(#status-hatch)" : "#e08a00")
      << "\"/>";
  }
  s << "<text x=\"" << left + pw << "\" y=\"" << H - 6
    << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#5b6577\">last " << n
    << (relist_in_progress(r) ? " relists (the hatched one still running), oldest left"
                              : " relists, oldest left")
    << "</text>";
  s << "</svg>";
  return s.str();
}

}  // namespace plegscope
