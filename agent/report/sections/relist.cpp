// The relists: period, threshold, the one in progress, durations, and the
// timeline drawn as a sparkline (text) or two charts (HTML).
#include <algorithm>
#include <cmath>

#include "report/charts.h"
#include "report/format.h"
#include "report/html.h"
#include "report/journal_text.h"
#include "report/json_values.h"
#include "report/sections/render_util.h"
#include "report/sections/section.h"
#include "report/text.h"

namespace plegscope::report {
namespace {

using text::elapsed;

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

void relist_text(const Report& r, std::ostream& out) {
  std::vector<const TimelineEntry*> done;
  for (const auto& e : r.timeline)
    if (!e.in_progress) done.push_back(&e);
  size_t failed = std::count_if(done.begin(), done.end(), [](const auto* e) { return e->error.has_value(); });
  out << "Relist: period " << elapsed(r.relist.period_seconds) << ", threshold " << elapsed(r.relist.threshold_seconds)
      << ", last seen "
      << (r.relist.seconds_since_last_seen ? elapsed(*r.relist.seconds_since_last_seen) + " ago" : "never") << "\n";
  if (const TimelineEntry* now = relist_in_progress(r))
    out << hanging_wrap("in progress: " + describe_in_progress(*now), "  ", "    ");
  else if (r.relist.in_progress_seconds)
    out << "  in progress: running for " << elapsed(*r.relist.in_progress_seconds) << "\n";
  if (r.relist.events_late_by_seconds) out << "  " << lateness(*r.relist.events_late_by_seconds) << "\n";
  if (done.empty())
    out << "  no relist has completed yet\n";
  else
    out << "  duration p50 " << elapsed(r.relist.duration_p50_seconds) << ", p99 "
        << elapsed(r.relist.duration_p99_seconds) << " over "
        << text::count(static_cast<long>(done.size()), "completed relist", "completed relists") << " (" << failed
        << " failed)\n";
  // Journal: a runtime restart beside the failed relists.
  if (auto note = runtime_restart_note(r)) out << hanging_wrap(*note, "  ", "    ");
  if (r.relist.stretched_period_seconds)
    out << hanging_wrap("do no harm: plegscope relists every " + elapsed(*r.relist.stretched_period_seconds) +
                            " instead of every " + elapsed(r.relist.period_seconds) + " while the runtime struggles (" +
                            r.relist.stretch_reason.value_or("") + ")",
                        "  ", "    ");
  if (r.relist.evented_fallback_reason)
    out << "  evented PLEG fell back to generic relisting: " << *r.relist.evented_fallback_reason << "\n";
  else if (r.relist.mode == "evented")
    out << "  evented PLEG active (GetContainerEvents); generic relist as a safety net\n";
  if (!done.empty()) {
    if (done.size() > 60) done.erase(done.begin(), done.end() - 60);
    out << "  last " << done.size() << ": " << sparkline(done) << "\n";
  }
}

void duration_chart_html(const Report& r, std::ostream& h) {
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
}

class RelistSection final : public Section {
 public:
  RelistSection()
      : Section(SectionId::kRelist, "relist", {"relist", "timeline"}, "Relist: ", "relist-duration-chart") {}

  void write_json(const Report& r, json& j) const override {
    j["relist"] = r.relist;
    j["timeline"] = r.timeline;
  }
  void read_json(const json& j, Report& r) const override {
    r.relist = j.value("relist", r.relist);
    r.timeline = j.value("timeline", r.timeline);
  }

  void text(const Report& r, int, std::ostream& out) const override { relist_text(r, out); }

  // Part 0 the durations against the threshold; part 1 where each relist's
  // time goes, under the journal so its marks line up with the first.
  void html(const Report& r, int part, std::ostream& h) const override {
    if (part == 0) {
      duration_chart_html(r, h);
      return;
    }
    h << "<h2>Where each relist spends its time</h2><div class=\"chart\">" << list_status_chart(r)
      << "<div class=\"legend\"><i style=\"background:#2b63c6\"></i>list calls (ListPodSandbox + "
         "ListContainers)"
         "<i style=\"background:#e08a00\"></i>per-pod status inspection</div></div>\n";
  }
};

}  // namespace

const Section& relist_section() {
  static const RelistSection section;
  return section;
}

}  // namespace plegscope::report
