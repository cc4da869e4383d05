// The DiagnosisService diagnoses once per relist (or per max_age while none
// completes), never once per reader, and is the only way to a report.
#include "node/diagnosis_service.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "fake_clock.h"
#include "node/node_without_runtime.h"

namespace plegscope {
namespace {

TEST(DiagnosisService, ScrapesShareOneDiagnosisUntilARelistOrMaxAge) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);  // not started: no relist runs by itself
  DiagnosisOptions options;
  options.max_age = std::chrono::seconds(1);
  DiagnosisService diagnosis(node, clock, options);

  auto families = diagnosis.collect_metrics();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].name, "pleg_diagnosis_cause");
  EXPECT_FALSE(families[0].metric.empty()) << "every cause id is exported";
  EXPECT_EQ(diagnosis.diagnoses(), 1u);

  std::vector<std::thread> scrapers;
  for (int i = 0; i < 8; ++i)
    scrapers.emplace_back([&] {
      for (int j = 0; j < 20; ++j) diagnosis.collect_metrics();
    });
  for (auto& t : scrapers) t.join();
  EXPECT_EQ(diagnosis.diagnoses(), 1u) << "160 scrapes, no relist, no time passed";

  clock.step(std::chrono::milliseconds(1500));
  diagnosis.collect_metrics();
  EXPECT_EQ(diagnosis.diagnoses(), 2u) << "older than max_age: diagnosed again (a hang shows)";

  node.relist();  // fails at once (no socket) but is a relist
  diagnosis.collect_metrics();
  diagnosis.collect_metrics();
  EXPECT_EQ(diagnosis.diagnoses(), 3u) << "a new relist: diagnosed again, once";
}

// A wall clock stepped back an hour (ntpd, a VM resume) must not keep a
// diagnosis "fresh" for that hour: during a hang no relist completes, so
// max_age on the monotonic clock is all that moves the verdict.
TEST(DiagnosisService, AWallClockStepNeverFreezesTheVerdict) {
  for (auto wall_step : {-std::chrono::hours(1), std::chrono::hours(1)}) {
    testing::FakeClock clock;
    Node node(testing::node_without_runtime(), clock);
    DiagnosisOptions options;
    options.max_age = std::chrono::seconds(1);
    DiagnosisService diagnosis(node, clock, options);
    auto first = diagnosis.latest();
    clock.step_wall(wall_step);
    EXPECT_EQ(diagnosis.latest(), first) << "no monotonic time passed: still fresh";
    clock.step(std::chrono::milliseconds(1500));
    EXPECT_NE(diagnosis.latest(), first) << "1.5 s on the monotonic clock: made again";
    EXPECT_EQ(diagnosis.diagnoses(), 2u);
  }
}

TEST(DiagnosisService, EveryCauseIdIsExportedEvenWhenAbsent) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  DiagnosisService diagnosis(node, clock, DiagnosisOptions{});
  std::set<std::string> exported;
  auto families = diagnosis.collect_metrics();
  for (const auto& metric : families.at(0).metric) exported.insert(metric.label.at(0).value);
  for (CauseId id : kAllCauses) EXPECT_EQ(exported.count(cause_name(id)), 1u) << cause_name(id);
  EXPECT_EQ(exported.size(), std::size(kAllCauses));
}

TEST(DiagnosisService, PublishesTheNodesObservationsAndKeepsThemUntilStale) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  DiagnosisService diagnosis(node, clock, DiagnosisOptions{});
  auto before = diagnosis.latest();
  EXPECT_EQ(before->report.node, "test");
  EXPECT_FALSE(before->report.healthy) << "no relist has succeeded";
  EXPECT_EQ(diagnosis.latest(), before) << "nothing changed: the same published diagnosis";
  node.relist();
  auto after = diagnosis.latest();
  EXPECT_NE(after, before);
  EXPECT_EQ(after->relists, 1u);
  ASSERT_FALSE(after->report.timeline.empty()) << "the failed relist is in the timeline";
  EXPECT_TRUE(after->report.timeline.back().error);
  EXPECT_EQ(before->report.timeline.size(), 0u) << "a published diagnosis never changes";
}

}  // namespace
}  // namespace plegscope
