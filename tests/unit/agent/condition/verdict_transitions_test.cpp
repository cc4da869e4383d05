// One record per change of the verdict's status, none while it holds, and a
// flapping node rate-limited without losing the fact that it flapped.
#include "condition/verdict_transitions.h"

#include <gtest/gtest.h>

#include <vector>

#include "fake_clock.h"
#include "node/node_without_runtime.h"

namespace plegscope {
namespace {

using std::chrono::seconds;

struct Limited {
  testing::FakeClock clock;
  TransitionLimiter limiter{TransitionLimits{2, seconds(60)}};
  std::optional<VerdictTransition> see(Status s) { return limiter.observe(s, clock.monotonic()); }
};

TEST(TransitionLimiter, RecordsTheFirstVerdictThenOnlyChanges) {
  Limited l;
  auto first = l.see(Status::kHealthy);
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->previous) << "an agent's first verdict has no previous status";
  EXPECT_EQ(first->status, Status::kHealthy);
  for (int i = 0; i < 100; ++i) {
    l.clock.step(seconds(1));
    EXPECT_FALSE(l.see(Status::kHealthy)) << "a steady status is never logged again";
  }
  l.clock.step(seconds(60));
  auto risk = l.see(Status::kAtRisk);
  ASSERT_TRUE(risk);
  EXPECT_EQ(risk->previous, Status::kHealthy);
  EXPECT_EQ(risk->status, Status::kAtRisk);
  EXPECT_EQ(risk->suppressed, 0);
}

TEST(TransitionLimiter, TheWholeHealthyAtRiskUnhealthyHealthyCycleIsRecorded) {
  testing::FakeClock clock;
  TransitionLimiter limiter;  // the agent's limits
  std::vector<Status> cycle = {Status::kHealthy, Status::kAtRisk, Status::kUnhealthy, Status::kHealthy};
  for (Status s : cycle) {
    auto t = limiter.observe(s, clock.monotonic());
    ASSERT_TRUE(t) << status_name(s);
    EXPECT_EQ(t->status, s);
    EXPECT_EQ(t->suppressed, 0);
    clock.step(seconds(2));  // a fault that comes and goes within seconds is still logged whole
  }
}

TEST(TransitionLimiter, FlappingIsBoundedAndCounted) {
  Limited l;  // burst 2, one more a minute
  int records = 0;
  int64_t suppressed = 0;
  Status last = Status::kHealthy;
  for (int i = 0; i < 120; ++i) {  // flapping every 5 s for 10 minutes
    last = i % 2 ? Status::kAtRisk : Status::kHealthy;
    if (auto t = l.see(last)) {
      records++;
      suppressed += t->suppressed;
    }
    l.clock.step(seconds(5));
  }
  // 2 at once, then one a minute: 12 in 10 minutes, not 120.
  EXPECT_LE(records, 2 + 10 + 1);
  EXPECT_GE(records, 2 + 9);
  EXPECT_GT(suppressed, 0) << "the records say the node flapped in between";
  // Every change is either a record or counted in one, but for those since the last record.
  EXPECT_LE(records - 1 + suppressed, 119);
  EXPECT_GE(records - 1 + suppressed, 119 - 12);
}

TEST(TransitionLimiter, AFlapBackToTheRecordedStatusIsRecordedWhenATokenReturns) {
  Limited l;
  ASSERT_TRUE(l.see(Status::kHealthy));
  ASSERT_TRUE(l.see(Status::kAtRisk));   // the burst is spent
  EXPECT_FALSE(l.see(Status::kHealthy)); // no token
  EXPECT_FALSE(l.see(Status::kAtRisk));  // back where the last record stands: still no token
  l.clock.step(seconds(61));
  auto t = l.see(Status::kAtRisk);
  ASSERT_TRUE(t) << "the flap is recorded once a token is back, without a further change";
  EXPECT_EQ(t->previous, Status::kAtRisk);
  EXPECT_EQ(t->status, Status::kAtRisk);
  EXPECT_EQ(t->suppressed, 2);
  l.clock.step(seconds(61));
  EXPECT_FALSE(l.see(Status::kAtRisk)) << "recorded once, not again";
}

TEST(TransitionLimiter, TheLastStatusIsRecordedEvenIfTheChangeFoundNoToken) {
  Limited l;
  ASSERT_TRUE(l.see(Status::kHealthy));
  ASSERT_TRUE(l.see(Status::kAtRisk));
  EXPECT_FALSE(l.see(Status::kUnhealthy));  // limited
  l.clock.step(seconds(30));
  EXPECT_FALSE(l.see(Status::kUnhealthy));  // half a token
  l.clock.step(seconds(30));
  auto t = l.see(Status::kUnhealthy);
  ASSERT_TRUE(t) << "a node that stays unhealthy gets its line when the limit allows";
  EXPECT_EQ(t->previous, Status::kAtRisk);
  EXPECT_EQ(t->status, Status::kUnhealthy);
  EXPECT_EQ(t->suppressed, 0) << "the one change is the record itself";
}

TEST(VerdictWatch, HandsTheSinkTheFirstVerdictOnceARelistEndedThenNothingWhileItHolds) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  DiagnosisService diagnosis(node, clock, DiagnosisOptions{});
  std::vector<VerdictTransition> seen;
  VerdictWatch watch(diagnosis, clock,
                     [&](const VerdictTransition& t, const Diagnosis& d) {
                       EXPECT_EQ(t.status, d.report.status) << "the record is the diagnosis it came from";
                       seen.push_back(t);
                     });
  watch.check();
  EXPECT_TRUE(seen.empty()) << "no relist has ended: \"no relist yet\" is no verdict to record";
  node.relist();  // fails at once (no socket): a verdict
  clock.step(seconds(2));
  watch.check();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].previous);
  EXPECT_NE(seen[0].status, Status::kHealthy) << "a runtime without a socket";
  watch.check();
  EXPECT_EQ(seen.size(), 1u);
}

}  // namespace
}  // namespace plegscope
