// plegscope.io/NodeRepairAdvised on the fake clock: True only for a
// node-level cause (advice other than none and fix-pod) held past the repair
// window, across changes between node-level causes; never for a pod's own
// cause, however unhealthy the node; cleared as the broad condition clears.
#include <gtest/gtest.h>

#include "condition/condition_policy.h"
#include "condition/node_condition_writer.h"
#include "fake_clock.h"

namespace plegscope {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

ConditionVerdict verdict(Status status, CauseId cause, Advice advice) {
  ConditionVerdict v;
  v.status = status;
  v.top = cause;
  v.top_severity = Severity::kCritical;
  v.has_verdict = true;
  v.top_advice = advice;
  return v;
}

ConditionVerdict healthy() {
  ConditionVerdict v;
  v.has_verdict = true;
  return v;
}

class RepairTest : public ::testing::Test {
 protected:
  RepairTest() {
    options.policy.clear_after = minutes(2);
    options.policy.min_interval = seconds(30);
    options.policy.heartbeat = minutes(5);
    options.repair_after = minutes(10);
  }
  // Steps the fake clock to `t` seconds from the start, observes `v` as the
  // writer does (repair_verdict) and confirms what is due.
  std::optional<ConditionWrite> at(int t, const ConditionVerdict& v) {
    clock.step(start + seconds(t) - clock.monotonic());
    auto write = policy.observe(repair_verdict(v), clock.monotonic());
    if (write) policy.confirm(*write, clock.monotonic());
    return write;
  }
  NodeConditionOptions options;
  testing::FakeClock clock;
  MonoTime start = clock.monotonic();
  ConditionPolicy policy{repair_policy_options(options)};
};

TEST(RepairAdvice, NodeLevelIsEveryAdviceButNoneAndFixPod) {
  EXPECT_FALSE(node_level(Advice::kNone));
  EXPECT_FALSE(node_level(Advice::kFixPod));
  for (Advice a : {Advice::kRestartKubelet, Advice::kRestartRuntime, Advice::kFixStorage, Advice::kReboot,
                   Advice::kReplace})
    EXPECT_TRUE(node_level(a)) << advice_name(a);
}

TEST(RepairAdvice, ThePolicyHoldsForTheRepairWindowAndKeepsTheRest) {
  NodeConditionOptions o;
  o.repair_after = minutes(7);
  const ConditionPolicyOptions p = repair_policy_options(o);
  EXPECT_EQ(p.hold, minutes(7));
  EXPECT_EQ(p.clear_after, o.policy.clear_after);
  EXPECT_EQ(p.min_interval, o.policy.min_interval);
  EXPECT_EQ(p.heartbeat, o.policy.heartbeat);
}

TEST_F(RepairTest, ABlindAgentNeverAdvisesRepair) {
  // What a blind agent would say if its view were the node's: unhealthy,
  // runtime_unavailable, restart the runtime, for 15 minutes.
  auto down = verdict(Status::kUnhealthy, CauseId::kRuntimeUnavailable, Advice::kRestartRuntime);
  down.blind = true;
  EXPECT_TRUE(repair_verdict(down).blind);
  for (int t = 0; t <= 900; t += 10) EXPECT_FALSE(at(t, down)) << t;
  EXPECT_FALSE(policy.written());
}

TEST_F(RepairTest, ANodeLevelCauseSetsTrueOnlyPastTheWindow) {
  const auto hung = verdict(Status::kUnhealthy, CauseId::kRuntimeHung, Advice::kRestartRuntime);
  EXPECT_FALSE(at(0, hung));
  EXPECT_FALSE(at(599, hung));  // the broad condition has been True since 0
  auto write = at(600, hung);
  ASSERT_TRUE(write);
  EXPECT_TRUE(write->problem);
  EXPECT_EQ(condition_reason(write->cause), "RuntimeHung");
}

TEST_F(RepairTest, APodLocalCauseNeverSetsItOnAnUnhealthyNode) {
  const auto pod = verdict(Status::kUnhealthy, CauseId::kPodStatusSlow, Advice::kFixPod);
  std::optional<ConditionWrite> last;
  for (int t = 0; t <= 3600; t += 15)
    if (auto w = at(t, pod)) last = w;
  // Written, but only ever False: "no repair advised" once clear_after passed.
  ASSERT_TRUE(last);
  EXPECT_FALSE(last->problem);
  EXPECT_FALSE(policy.written()->problem);
}

TEST_F(RepairTest, ChangesBetweenNodeLevelCausesKeepTheWindowRunning) {
  EXPECT_FALSE(at(0, verdict(Status::kUnhealthy, CauseId::kRuntimeHung, Advice::kRestartRuntime)));
  EXPECT_FALSE(at(300, verdict(Status::kAtRisk, CauseId::kShimHung, Advice::kReboot)));
  auto write = at(600, verdict(Status::kAtRisk, CauseId::kShimHung, Advice::kReboot));
  ASSERT_TRUE(write);
  EXPECT_TRUE(write->problem);
  EXPECT_EQ(condition_reason(write->cause), "ShimHung");
}

TEST_F(RepairTest, APodLocalSpellRestartsTheWindow) {
  const auto hung = verdict(Status::kUnhealthy, CauseId::kRuntimeHung, Advice::kRestartRuntime);
  EXPECT_FALSE(at(0, hung));
  EXPECT_FALSE(at(500, verdict(Status::kUnhealthy, CauseId::kPodStatusSlow, Advice::kFixPod)));
  EXPECT_FALSE(at(510, hung));
  EXPECT_FALSE(at(1000, hung));
  auto write = at(1110, hung);
  ASSERT_TRUE(write);
  EXPECT_TRUE(write->problem);
}

TEST_F(RepairTest, ClearsAfterClearAfterOfNoNodeLevelCause) {
  const auto hung = verdict(Status::kUnhealthy, CauseId::kRuntimeHung, Advice::kRestartRuntime);
  at(0, hung);
  ASSERT_TRUE(at(600, hung));
  EXPECT_FALSE(at(700, healthy()));
  EXPECT_FALSE(at(819, healthy()));
  auto write = at(820, healthy());
  ASSERT_TRUE(write);
  EXPECT_FALSE(write->problem);
  EXPECT_EQ(write->change, ConditionChange::kRecovered);
  EXPECT_EQ(condition_reason(write->cause), "PLEGHealthy");
}

TEST_F(RepairTest, NothingIsWrittenBeforeAVerdict) {
  ConditionVerdict none = verdict(Status::kUnhealthy, CauseId::kRuntimeHung, Advice::kRestartRuntime);
  none.has_verdict = false;
  for (int t = 0; t <= 1200; t += 60) EXPECT_FALSE(at(t, none)) << t;
}

}  // namespace
}  // namespace plegscope
