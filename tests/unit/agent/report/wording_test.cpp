// The words agent/report gives the diagnoser's findings, and that every way
// of showing a report (JSON, text, HTML, and `plegscope diagnose --url`,
// which reads the JSON back) shows the same words.
#include "report/wording.h"

#include <gtest/gtest.h>

#include "report/html.h"
#include "report/json.h"
#include "report/text.h"
#include "snapshot_builder.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;

Report hung_list() {
  Builder b;
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 12;
  b.s.relist_in_progress_since = kNow - secs(12);
  return b.findings();
}

TEST(Wording, AFindingBecomesTheOperatorsSentence) {
  Report r = worded(hung_list());
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->summary,
            "A CRI call is hung: ListContainers has been in flight for 12s (hang threshold 10s), so the relist "
            "cannot finish.");
  EXPECT_EQ(c->remedy.rfind("Confirm: `crictl --timeout 10s --runtime-endpoint "
                            "unix:///run/containerd/containerd.sock ps -a -q` fails too, after 10 s",
                            0),
            0u)
      << c->remedy;
  EXPECT_EQ(r.summary.rfind("PLEG is at risk (unhealthy in about ", 0), 0u) << r.summary;
  EXPECT_NE(r.summary.find(") because ListContainers has been in flight for 12s (hang threshold 10s): the runtime is "
                           "hung; capture its goroutine dump, then restart it."),
            std::string::npos)
      << r.summary;
}

TEST(Wording, WordsAlreadyThereStay) {
  Report r = hung_list();
  r.causes.front().summary = "read back from an agent";
  r.summary = "as the agent said";
  word(r);
  EXPECT_EQ(r.causes.front().summary, "read back from an agent");
  EXPECT_EQ(r.summary, "as the agent said");
  EXPECT_FALSE(needs_words(r));
}

TEST(Wording, EveryRendererShowsTheWords) {
  const Report r = hung_list();
  ASSERT_TRUE(needs_words(r));
  const std::string sentence = "ListContainers has been in flight for 12s";
  EXPECT_NE(report_to_json(r)["summary"].get<std::string>().find(sentence), std::string::npos);
  EXPECT_NE(report_to_json(r)["causes"][0]["summary"].get<std::string>().find(sentence), std::string::npos);
  EXPECT_NE(render_html(r).find(sentence), std::string::npos);
  EXPECT_NE(render_text(r).find("ListContainers has been in"), std::string::npos);
}

TEST(Wording, TheReportReadBackRendersTheSame) {
  const Report r = hung_list();
  const Report back = report_from_json(report_to_json(r));
  EXPECT_FALSE(needs_words(back));
  EXPECT_EQ(report_to_json(back), report_to_json(r));
  EXPECT_EQ(render_text(back), render_text(r));
  EXPECT_EQ(render_html(back), render_html(r));
}

TEST(Wording, EveryCauseHasAWordingRow) {
  for (CauseId id : kAllCauses) {
    SCOPED_TRACE(cause_name(id));
    const CauseText& t = cause_text(id);
    EXPECT_TRUE(t.confirm && *t.confirm && t.fix && *t.fix && t.never && *t.never);
    Finding f;
    f.id = id;
    const CauseWords w = words(f);
    EXPECT_FALSE(w.reason.empty() || w.action.empty() || w.summary.empty());
  }
}

}  // namespace
}  // namespace plegscope
