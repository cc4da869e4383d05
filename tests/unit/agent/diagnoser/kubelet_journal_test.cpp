// kubelet_internal and the kubelet's own journal lines ( item 3 on
// the cause): "PLEG is not healthy" in the window cites into the
// finding when the kubelet's metrics show it stuck; with its metrics
// unreadable, the lines beside the agent's own fast relists name it at a
// lower confidence, saying what was measured; never while the agent's own
// relists on the same runtime hang, fail or stopped meanwhile. The clock is
// the builder's fixed kNow.
#include "snapshot_builder.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope::testing {
namespace {

// The kubelet's exact line (kubelet.go's sync loop, runtime_state.go's error).
const std::string kKubeletLine =
    "E1124 05:00:00.000000    1234 kubelet.go:2345] \"Skipping pod synchronization\" "
    "err=\"PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s\"";

// A node whose agent relisted every second for the last two minutes.
Builder relisting_node() {
  Builder b;
  b.relists(120, relist());
  b.s.timeline.front().start = kNow - seconds(121);
  return b;
}

// The kubelet's "PLEG is not healthy" lines `seconds_ago`, as the Node summarizes them.
void pleg_lines(Builder& b, std::initializer_list<double> seconds_ago) {
  JournalEvidence& j = b.s.journal;
  j.available = true;
  j.path = "/var/log/journal";
  j.kubelet_unit = "kubelet.service";
  j.runtime_units = {"containerd.service"};
  for (double ago : seconds_ago) j.marks.push_back({kNow - secs(ago), "kubelet.service", "pleg_not_healthy", kKubeletLine});
  summarize_journal_window(j, b.s.timeline.front().start);
}

void stuck_kubelet(Builder& b) {
  b.s.kubelet.endpoint = "https://10.0.0.5:10250";
  b.s.kubelet.reachable = true;
  KubeletView& v = b.s.kubelet.view;
  v.samples = 12;
  v.sample_age_seconds = 0;
  v.relist_count = 5000;
  v.seconds_since_relist_advanced = 200;
  v.last_seen_age_seconds = 200;
  v.version = KubeletVersion{1, 30, "v1.30.2"};
  v.model = pleg_model_for(*v.version, false);
}

void unreadable_kubelet(Builder& b) {
  b.s.kubelet.endpoint = "https://10.0.0.5:10250";
  b.s.kubelet.reachable = false;
  b.s.kubelet.outcome.error = ScrapeError::forbidden;
  b.s.kubelet.outcome.http_status = 403;
}

const Evidence* evidence(const Cause& c, const std::string& signal) {
  for (const auto& e : c.evidence)
    if (e.signal == signal) return &e;
  return nullptr;
}

TEST(KubeletInternalJournal, StuckKubeletCitesItsOwnLines) {
  Builder b = relisting_node();
  stuck_kubelet(b);
  pleg_lines(b, {65, 35, 5});
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kKubeletInternal);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->form, Form::kFound);
  EXPECT_GE(c->confidence, 0.6);  // measured from the kubelet's metrics
  EXPECT_EQ(c->details<KubeletInternalDetails>().journal_marks, 3);
  ASSERT_TRUE(c->details<KubeletInternalDetails>().journal_last_mark);
  EXPECT_EQ(*c->details<KubeletInternalDetails>().journal_last_mark, kNow - seconds(5));
  EXPECT_EQ(c->details<KubeletInternalDetails>().journal_last_message, kKubeletLine);
  ASSERT_NE(evidence(*c, "kubelet_journal_pleg_not_healthy_lines"), nullptr);
  EXPECT_EQ(evidence(*c, "kubelet_journal_pleg_not_healthy_lines")->value, 3);
  EXPECT_EQ(evidence(*c, "kubelet_journal_seconds_since_pleg_not_healthy")->value, 5);
  EXPECT_NE(c->summary.find("the kubelet's journal says \"PLEG is not healthy\" 3 times"), std::string::npos)
      << c->summary;
  EXPECT_NE(c->summary.find("pleg was last seen active 3m5.2s ago"), std::string::npos) << c->summary;
}

TEST(KubeletInternalJournal, StuckKubeletWithoutLinesCitesNone) {
  Builder b = relisting_node();
  stuck_kubelet(b);
  Report rep = b.report();  // the cause points into it
  const Cause* c = find(rep, CauseId::kKubeletInternal);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->details<KubeletInternalDetails>().journal_marks, 0);
  EXPECT_EQ(evidence(*c, "kubelet_journal_pleg_not_healthy_lines"), nullptr);
}

TEST(KubeletInternalJournal, UnreadableKubeletLinesAndFastRelistsNameItLower) {
  Builder b = relisting_node();
  unreadable_kubelet(b);
  pleg_lines(b, {40, 10});
  const Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.id, CauseId::kKubeletInternal);
  EXPECT_EQ(c.form, Form::kFromJournal);
  EXPECT_LT(c.confidence, 0.6);
  EXPECT_GE(c.confidence, DiagnoserThresholds{}.min_confidence);
  EXPECT_EQ(c.severity, Severity::kWarning);
  EXPECT_EQ(c.details<KubeletInternalDetails>().journal_marks, 2);
  EXPECT_EQ(*c.details<KubeletInternalDetails>().journal_first_mark, kNow - seconds(40));
  EXPECT_EQ(*c.details<KubeletInternalDetails>().journal_last_mark, kNow - seconds(10));
  ASSERT_NE(evidence(c, "agent_relist_p99_seconds"), nullptr);
  EXPECT_NEAR(evidence(c, "agent_relist_p99_seconds")->value, 0.005, 1e-9);
  EXPECT_EQ(evidence(c, "kubelet_last_seen_age_seconds"), nullptr);  // not measured: not claimed
  // Exactly what was measured: the lines' count and times, the agent's p99, and what could not be read.
  EXPECT_NE(c.summary.find("2 times (first at " + rfc3339(kNow - seconds(40)) + ", last at " +
                           rfc3339(kNow - seconds(10))),
            std::string::npos)
      << c.summary;
  EXPECT_NE(c.summary.find("take 5ms (p99)"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("could not be read"), std::string::npos) << c.summary;
}

TEST(KubeletInternalJournal, KubeletMetricsOffSaysSo) {
  Builder b = relisting_node();
  pleg_lines(b, {10});
  Report rep = b.report();  // the cause points into it
  const Cause* c = find(rep, CauseId::kKubeletInternal);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->summary.find("--kubelet-endpoint is off"), std::string::npos) << c->summary;
}

TEST(KubeletInternalJournal, LinesWhileTheAgentsListHangsAreRuntimeHung) {
  Builder b = relisting_node();
  unreadable_kubelet(b);
  pleg_lines(b, {40, 10});
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 150;
  const Report r = b.report();
  EXPECT_EQ(find(r, CauseId::kKubeletInternal), nullptr);
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
}

TEST(KubeletInternalJournal, LinesFromWhenTheAgentsRelistsFailedAreNotEvidence) {
  Builder b = relisting_node();
  unreadable_kubelet(b);
  // The runtime failed the agent's relists 60-50 s ago and answers again now.
  for (auto& r : b.s.timeline)
    if (r.start >= kNow - seconds(60) && r.start < kNow - seconds(50)) r.error_code = GrpcCode::kDeadlineExceeded;
  pleg_lines(b, {45});
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
}

TEST(KubeletInternalJournal, LinesWhileTheAgentsRelistsWereSlowAreNotEvidence) {
  Builder b = relisting_node();
  unreadable_kubelet(b);
  b.s.timeline[60].duration = secs(12);  // one relist past the hang threshold a minute ago
  pleg_lines(b, {45});
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
}

TEST(KubeletInternalJournal, ARuntimeRestartExplainsTheLines) {
  Builder b = relisting_node();
  unreadable_kubelet(b);
  b.s.journal.marks.push_back({kNow - seconds(50), "containerd.service", "unit_started", "Started containerd."});
  pleg_lines(b, {45});
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
}

TEST(KubeletInternalJournal, LinesBeforeTheAgentsTimelineAreNotEvidence) {
  Builder b = relisting_node();
  unreadable_kubelet(b);
  pleg_lines(b, {300});
  EXPECT_EQ(b.s.journal.pleg_not_healthy_marks, 0);
  EXPECT_TRUE(b.report().causes.empty());
}

TEST(KubeletInternalJournal, ARunningKubeletOutweighsItsLines) {
  Builder b = relisting_node();
  stuck_kubelet(b);
  b.s.kubelet.view.seconds_since_relist_advanced = 0.5;
  b.s.kubelet.view.last_seen_age_seconds = 0.8;
  pleg_lines(b, {40, 10});
  EXPECT_TRUE(b.report().causes.empty());
}

}  // namespace
}  // namespace plegscope::testing
