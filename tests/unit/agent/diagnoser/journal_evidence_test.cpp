// The journal's window counts a rule reads (kubelet_internal: the kubelet
// saying "PLEG is not healthy" while the agent's relists are fast) and the
// runtime restarts that explain a gap: only marks inside the window, only
// from the right unit; and diagnose() carries the marks and the journal's
// absence into the report.
#include <gtest/gtest.h>

#include "diagnoser/diagnoser.h"
#include "diagnoser/journal_evidence.h"
#include "snapshot_builder.h"

namespace plegscope {
namespace {

using std::chrono::seconds;

const TimePoint kT0 = TimePoint(seconds(1'790'000'000));

JournalEvidence journal() {
  JournalEvidence j;
  j.available = true;
  j.path = "/var/log/journal";
  j.kubelet_unit = "kubelet.service";
  j.runtime_units = {"containerd.service", "crio.service"};
  return j;
}

TEST(JournalEvidence, CountsPlegNotHealthyMarksOfTheKubeletInsideTheWindow) {
  JournalEvidence j = journal();
  j.marks = {{kT0 - seconds(700), "kubelet.service", "pleg_not_healthy", "old"},
             {kT0 + seconds(10), "kubelet.service", "pleg_not_healthy", "a"},
             {kT0 + seconds(20), "kubelet.service", "error_syncing_pod", "b"},
             {kT0 + seconds(30), "kubelet.service", "pleg_not_healthy", "c"},
             // Another unit's line with the same words is not the kubelet's.
             {kT0 + seconds(40), "other.service", "pleg_not_healthy", "d"}};
  summarize_journal_window(j, kT0);
  EXPECT_EQ(j.pleg_not_healthy_marks, 2);
  EXPECT_EQ(j.last_pleg_not_healthy, kT0 + seconds(30));
  EXPECT_EQ(j.runtime_restart_marks, 0);
  EXPECT_FALSE(j.last_runtime_restart);
}

TEST(JournalEvidence, RuntimeRestartsAreTheRuntimeUnitsStartsAndStops) {
  JournalEvidence j = journal();
  j.marks = {{kT0 + seconds(1), "containerd.service", "unit_stopping", ""},
             {kT0 + seconds(2), "containerd.service", "unit_started", ""},
             {kT0 + seconds(3), "containerd.service", "runtime_started", ""},
             {kT0 + seconds(4), "kubelet.service", "unit_started", ""},  // the kubelet's
             {kT0 + seconds(5), "containerd.service", "cri_error", ""}};
  summarize_journal_window(j, kT0);
  EXPECT_EQ(j.runtime_restart_marks, 3);
  EXPECT_EQ(j.last_runtime_restart, kT0 + seconds(3));
  EXPECT_EQ(j.pleg_not_healthy_marks, 0);
}

TEST(JournalEvidence, NoMarksNoCounts) {
  JournalEvidence j = journal();
  j.pleg_not_healthy_marks = 7;  // stale from an earlier call
  summarize_journal_window(j, kT0);
  EXPECT_EQ(j.pleg_not_healthy_marks, 0);
  EXPECT_FALSE(j.last_pleg_not_healthy);
}

// Marks are evidence only: the kubelet's words reach the report, but no
// cause is named from them on a node whose relists are fast and whose
// kubelet's metrics show its relist running (kubelet_journal_test.cpp has
// the lines beside an unreadable or stuck kubelet).
TEST(JournalEvidence, DiagnoseCarriesTheNewestMarksAndNamesNoCauseFromThem) {
  testing::Builder b;
  b.relists(60, testing::relist());
  b.s.kubelet.endpoint = "https://10.0.0.5:10250";
  b.s.kubelet.reachable = true;
  b.s.kubelet.view.samples = 12;
  b.s.kubelet.view.sample_age_seconds = 0;
  b.s.kubelet.view.relist_count = 5000;
  b.s.kubelet.view.seconds_since_relist_advanced = 0.5;
  b.s.kubelet.view.last_seen_age_seconds = 0.8;
  b.s.journal = journal();
  for (int i = 0; i < 150; ++i)
    b.s.journal.marks.push_back({testing::kNow - seconds(150 - i), "kubelet.service",
                                 "pleg_not_healthy", "line " + std::to_string(i)});
  summarize_journal_window(b.s.journal, b.s.timeline.front().start);
  Report r = diagnose(b.s, DiagnoserThresholds{});
  ASSERT_EQ(r.journal.size(), 100u);  // bounded: the newest
  EXPECT_EQ(r.journal.front().message, "line 50");
  EXPECT_EQ(r.journal.back().message, "line 149");
  EXPECT_EQ(r.journal.back().kind, "pleg_not_healthy");
  EXPECT_TRUE(r.journal_source.reachable);
  EXPECT_FALSE(r.journal_source.error);
  EXPECT_TRUE(r.causes.empty());
  EXPECT_EQ(r.status, Status::kHealthy);
}

TEST(JournalEvidence, WithoutAJournalTheReportSaysWhyAndNothingElseChanges) {
  testing::Builder b;
  Report without_follower = diagnose(b.s, DiagnoserThresholds{});
  b.s.journal.path = "/var/log/journal";
  b.s.journal.error = "no journal at /var/log/journal";
  Report r = diagnose(b.s, DiagnoserThresholds{});
  EXPECT_FALSE(r.journal_source.reachable);
  EXPECT_EQ(r.journal_source.error, "no journal at /var/log/journal");
  EXPECT_TRUE(r.journal.empty());
  EXPECT_EQ(r.status, without_follower.status);
  EXPECT_EQ(r.causes.size(), without_follower.causes.size());
  EXPECT_EQ(r.timeline.size(), without_follower.timeline.size());
}

}  // namespace
}  // namespace plegscope
