// The journal's marks in /diagnose: DESIGN §6's "journal" entries and their
// source in JSON (both ways), text and HTML; a report without a journal
// says so; a runtime restart beside failed relists is named as the gap's
// explanation, and a restart far from them is not.
#include <gtest/gtest.h>

#include "report/html.h"
#include "report/json.h"
#include "report/text.h"
#include "sample_report.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;
using nlohmann::json;

// The text report wraps its lines: phrases are looked for with the line
// breaks and indentation collapsed to single spaces.
std::string flat(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\n';
    if (space && !out.empty() && out.back() == ' ') continue;
    out += space ? ' ' : c;
  }
  return out;
}

const std::string kPlegLine =
    "E1124 05:00:00.000000    1234 kubelet.go:2345] \"Skipping pod synchronization\" "
    "err=\"PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s\"";

Report with_journal() {
  Report r = sample();
  r.journal_source.reachable = true;
  r.journal_source.path = "/var/log/journal";
  r.journal_source.kubelet_unit = "kubelet.service";
  r.journal_source.runtime_units = {"containerd.service", "crio.service"};
  r.journal = {{kReportNow - seconds(5), "kubelet.service", "pleg_not_healthy", kPlegLine}};
  return r;
}

// The sample's third relist (at kReportNow - 18 s) failed.
Report with_runtime_restart(seconds stopped_ago, seconds started_ago) {
  Report r = with_journal();
  r.journal.insert(r.journal.begin(),
                   {{kReportNow - stopped_ago, "containerd.service", "unit_stopping",
                     "Stopping containerd.service - containerd container runtime..."},
                    {kReportNow - started_ago, "containerd.service", "unit_started",
                     "Started containerd.service - containerd container runtime."}});
  return r;
}

TEST(JournalReport, JsonHasTheDesignFieldsAndRoundTrips) {
  json j = report_to_json(with_journal());
  ASSERT_TRUE(j["journal"].is_array());
  ASSERT_EQ(j["journal"].size(), 1u);
  EXPECT_EQ(j["journal"][0],
            (json{{"time", "2026-09-21T14:13:15.250Z"}, {"unit", "kubelet.service"},
                  {"kind", "pleg_not_healthy"}, {"message", kPlegLine}}));
  EXPECT_EQ(j["journal_source"]["reachable"], true);
  EXPECT_EQ(j["journal_source"]["path"], "/var/log/journal");
  EXPECT_TRUE(j["journal_source"]["error"].is_null());
  Report back = report_from_json(j);
  ASSERT_EQ(back.journal.size(), 1u);
  EXPECT_EQ(back.journal[0].message, kPlegLine);
  EXPECT_EQ(back.journal[0].time, kReportNow - seconds(5));
  EXPECT_EQ(back.journal_source.runtime_units, with_journal().journal_source.runtime_units);
  EXPECT_EQ(report_to_json(back), j);
}

TEST(JournalReport, WithoutAJournalTheSectionIsPresentWithTheReason) {
  Report r = sample();
  r.journal_source.path = "";
  r.journal_source.error = "no journal at /var/log/journal or /run/log/journal";
  json j = report_to_json(r);
  EXPECT_EQ(j["journal"], json::array());
  EXPECT_EQ(j["journal_source"]["reachable"], false);
  EXPECT_EQ(j["journal_source"]["error"], "no journal at /var/log/journal or /run/log/journal");
  std::string text = render_text(r);
  EXPECT_NE(flat(text).find("Journal: no journal at /var/log/journal or /run/log/journal"),
            std::string::npos)
      << text;
  std::string html = render_html(r);
  EXPECT_NE(html.find("data-reachable=\"false\""), std::string::npos);
  EXPECT_NE(html.find("no journal at /var/log/journal or /run/log/journal"), std::string::npos);
  EXPECT_EQ(html.find("class=\"journal-mark\""), std::string::npos);
  // Nothing else changes: the report without its journal lines is the same.
  Report with = with_journal();
  std::string with_text = render_text(with);
  EXPECT_EQ(with_text.substr(0, with_text.find("\nJournal:")), text.substr(0, text.find("\nJournal:")));
}

TEST(JournalReport, TextAndHtmlShowTheKubeletsLine) {
  std::string text = render_text(with_journal());
  EXPECT_NE(flat(text).find("following kubelet.service, containerd.service and crio.service in "
                            "/var/log/journal: 1 mark"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  2026-09-21T14:13:15.250Z  kubelet.service  pleg_not_healthy\n"), std::string::npos)
      << text;
  EXPECT_NE(flat(text).find(flat(kPlegLine)), std::string::npos) << text;
  std::string html = render_html(with_journal());
  EXPECT_NE(html.find("<tr data-kind=\"pleg_not_healthy\">"), std::string::npos);
  EXPECT_NE(html.find("PLEG is not healthy: pleg was last seen active 3m5.2s ago"),
            std::string::npos);
  EXPECT_NE(html.find("&quot;Skipping pod synchronization&quot;"), std::string::npos);  // escaped
  // On the relist chart, inside its span.
  EXPECT_NE(html.find("<g class=\"journal-mark\" data-kind=\"pleg_not_healthy\">"), std::string::npos);
}

TEST(JournalReport, ARuntimeRestartAroundTheFailedRelistExplainsTheGap) {
  Report r = with_runtime_restart(seconds(19), seconds(17));
  std::string text = render_text(r);
  EXPECT_NE(flat(text).find("containerd.service restarted around the 1 failed relist (unit_stopping at "
                            "2026-09-21T14:13:01.250Z, unit_started at 2026-09-21T14:13:03.250Z): the "
                            "runtime's restart explains the gap in the timeline"),
            std::string::npos)
      << text;
  EXPECT_NE(render_html(r).find("id=\"runtime-restart\""), std::string::npos);
}

TEST(JournalReport, NoRestartNoteWhenTheRestartIsFarFromTheFailures) {
  // Ten minutes before the failed relist: unrelated.
  Report far = with_runtime_restart(seconds(620), seconds(618));
  EXPECT_EQ(render_text(far).find("restarted around"), std::string::npos);
  // The kubelet's unit restarting is not the runtime's.
  Report r = with_journal();
  r.journal.insert(r.journal.begin(), {kReportNow - seconds(18), "kubelet.service", "unit_started",
                                       "Started kubelet.service - kubelet."});
  EXPECT_EQ(render_text(r).find("restarted around"), std::string::npos);
  // No failed relist: nothing to explain.
  Report healthy = with_runtime_restart(seconds(19), seconds(17));
  for (auto& e : healthy.timeline) e.error.reset();
  EXPECT_EQ(render_text(healthy).find("restarted around"), std::string::npos);
}

TEST(JournalReport, TextShowsOnlyTheNewestMarks) {
  Report r = with_journal();
  r.journal.clear();
  for (int i = 0; i < 30; ++i)
    r.journal.push_back({kReportNow - seconds(60 - i), "kubelet.service", "error_syncing_pod",
                         "Error syncing pod number " + std::to_string(i)});
  std::string text = render_text(r);
  EXPECT_EQ(text.find("pod number 9\n"), std::string::npos) << text;
  EXPECT_NE(text.find("pod number 10\n"), std::string::npos);
  EXPECT_NE(text.find("pod number 29\n"), std::string::npos);
  EXPECT_NE(text.find("the JSON report has 30"), std::string::npos);
}

}  // namespace
}  // namespace plegscope
