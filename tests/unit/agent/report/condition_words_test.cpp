// The node condition's message and the API write errors' words; advice,
// schema_version and node_condition through JSON both ways.
#include "report/condition_words.h"

#include <gtest/gtest.h>

#include "report/json.h"
#include "report/text.h"
#include "sample_report.h"

namespace plegscope::testing {
namespace {

TEST(ConditionMessage, TheCulpritItsAdviceAndWhereTheReportIsOnOneLine) {
  Report r = sample();
  r.causes[0].advice = Advice::kRestartRuntime;
  r.causes[0].summary = "ListContainers has been in flight for 12s.\nThe runtime is hung.";
  const std::string m = condition_message(r, CauseId::kRuntimeHung);
  EXPECT_EQ(m, "ListContainers has been in flight for 12s. The runtime is hung. Advice: restart-runtime. "
               "Full report: kubectl plegscope diagnose worker-3 (or /diagnose on the agent).");
  EXPECT_NE(condition_message(r, std::nullopt).find("PLEG is healthy"), std::string::npos);
  // Held True while the cause is no longer named: said so, still one line.
  EXPECT_NE(condition_message(r, CauseId::kShimHung).find("The last named cause was shim_hung"), std::string::npos);
}

TEST(ConditionMessage, ALongSummaryIsCutWithinTheLimitAndNotInsideACharacter) {
  Report r = sample();
  r.causes[0].summary.clear();
  for (int i = 0; i < 600; ++i) r.causes[0].summary += "é";  // two bytes each
  const std::string m = condition_message(r, CauseId::kRuntimeHung);
  EXPECT_LE(m.size(), 1024u);
  EXPECT_EQ(m.substr(m.size() - 3), "...");
  EXPECT_EQ(static_cast<unsigned char>(m[m.size() - 5]), 0xC3);  // a whole "é" before the dots
}

TEST(ConditionErrorWords, ForbiddenNamesTheComponentAndUnreachableSaysItRetries) {
  ScrapeOutcome forbidden{ScrapeError::forbidden, 403, "HTTP 403"};
  EXPECT_NE(node_condition_error_words(forbidden).find("deploy/components/node-condition"), std::string::npos);
  ScrapeOutcome down{ScrapeError::unreachable, 0, "connect_refused: Connection refused"};
  EXPECT_NE(node_condition_error_words(down).find("keeps relisting"), std::string::npos);
  ScrapeOutcome conflict{ScrapeError::http_status, 409, "HTTP 409"};
  EXPECT_NE(node_condition_error_words(conflict).find("409 Conflict"), std::string::npos);
  EXPECT_EQ(node_condition_error_words(ScrapeOutcome{}), "");
}

TEST(ReportContract, AdviceSchemaVersionAndNodeConditionRoundTrip) {
  Report r = sample();
  r.causes[0].advice = Advice::kFixStorage;
  r.node_condition.enabled = true;
  r.node_condition.status = "True";
  r.node_condition.reason = "RuntimeHung";
  r.node_condition.writes = 2;
  r.node_condition.outcome = ScrapeOutcome{ScrapeError::forbidden, 403, "HTTP 403"};
  const nlohmann::json j = report_to_json(r);
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_EQ(j.at("causes")[0].at("advice"), "fix-storage");
  EXPECT_EQ(j.at("node_condition").at("status"), "True");
  EXPECT_NE(j.at("node_condition").at("error").get<std::string>().find("403"), std::string::npos);
  Report back = report_from_json(j);
  EXPECT_EQ(back.causes[0].advice, Advice::kFixStorage);
  EXPECT_EQ(back.node_condition.writes, 2);
  nlohmann::json wrong = j;
  wrong["causes"][0]["advice"] = "drain";
  EXPECT_THROW(report_from_json(wrong), std::invalid_argument);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("advice: fix-storage"), std::string::npos) << text;
  EXPECT_NE(text.find("Node condition plegscope.io/PLEGUnhealthy: True (RuntimeHung)"), std::string::npos) << text;
}

}  // namespace
}  // namespace plegscope::testing
