// The node condition's state machine on a stepped monotonic time: when it
// turns True, when it clears, that it never clears before a verdict, and
// that flapping is rate-limited.
#include "condition/condition_policy.h"

#include <gtest/gtest.h>

#include "condition/event_correlator.h"

namespace plegscope {
namespace {

using std::chrono::seconds;

ConditionPolicyOptions options() {
  ConditionPolicyOptions o;
  o.hold = seconds(30);
  o.clear_after = seconds(120);
  o.min_interval = seconds(30);
  o.heartbeat = seconds(300);
  return o;
}

ConditionVerdict healthy() { return {Status::kHealthy, std::nullopt, Severity::kInfo, true}; }
ConditionVerdict unhealthy(CauseId cause) { return {Status::kUnhealthy, cause, Severity::kCritical, true}; }
ConditionVerdict at_risk(CauseId cause, Severity severity) { return {Status::kAtRisk, cause, severity, true}; }

class PolicyTest : public ::testing::Test {
 protected:
  // Observes `v` at t (seconds from the start) and confirms what is due.
  std::optional<ConditionWrite> at(int t, const ConditionVerdict& v) {
    auto write = policy.observe(v, start + seconds(t));
    if (write) policy.confirm(*write, start + seconds(t));
    return write;
  }
  ConditionPolicy policy{options()};
  MonoTime start{};
};

TEST_F(PolicyTest, UnhealthySetsTrueAtOnceWithTheTopCause) {
  auto write = at(0, unhealthy(CauseId::kRuntimeHung));
  ASSERT_TRUE(write);
  EXPECT_TRUE(write->problem);
  EXPECT_EQ(write->cause, CauseId::kRuntimeHung);
  EXPECT_EQ(write->change, ConditionChange::kUnhealthy);
  EXPECT_EQ(condition_reason(write->cause), "RuntimeHung");
}

TEST_F(PolicyTest, AtRiskWithACriticalCauseSetsTrueOnlyAfterTheHold) {
  EXPECT_FALSE(at(0, at_risk(CauseId::kShimHung, Severity::kCritical)));
  EXPECT_FALSE(at(29, at_risk(CauseId::kShimHung, Severity::kCritical)));
  auto write = at(30, at_risk(CauseId::kShimHung, Severity::kCritical));
  ASSERT_TRUE(write);
  EXPECT_TRUE(write->problem);
  EXPECT_EQ(condition_reason(write->cause), "ShimHung");
}

TEST_F(PolicyTest, AtRiskWithAWarningNeverSetsTrue) {
  for (int t = 0; t <= 600; t += 10) EXPECT_FALSE(at(t, at_risk(CauseId::kEventStorm, Severity::kWarning))) << t;
}

TEST_F(PolicyTest, AnInterruptedCriticalCauseStartsItsHoldAgain) {
  EXPECT_FALSE(at(0, at_risk(CauseId::kRuntimeHung, Severity::kCritical)));
  EXPECT_FALSE(at(20, at_risk(CauseId::kRuntimeSlow, Severity::kWarning)));
  EXPECT_FALSE(at(40, at_risk(CauseId::kRuntimeHung, Severity::kCritical)));
  EXPECT_TRUE(at(70, at_risk(CauseId::kRuntimeHung, Severity::kCritical)));
}

TEST_F(PolicyTest, TheFirstFalseWaitsForAHealthyVerdictHeldForClearAfter) {
  ConditionVerdict none = healthy();
  none.has_verdict = false;
  EXPECT_FALSE(at(0, none));
  EXPECT_FALSE(at(200, none));  // no verdict, however long
  EXPECT_FALSE(at(201, healthy()));
  EXPECT_FALSE(at(320, healthy()));
  auto write = at(321, healthy());
  ASSERT_TRUE(write);
  EXPECT_FALSE(write->problem);
  EXPECT_EQ(write->change, ConditionChange::kFirstHealthy);
  EXPECT_EQ(condition_reason(write->cause), "PLEGHealthy");
}

TEST_F(PolicyTest, AnAgentRestartedDuringAFaultNeverWritesFalseFirst) {
  // A restarted agent sees healthy verdicts until the hung call passes the
  // hang threshold (10 s), then a critical cause: True, never False before it.
  for (int t = 0; t < 10; ++t) EXPECT_FALSE(at(t, healthy())) << t;
  for (int t = 10; t < 40; ++t) EXPECT_FALSE(at(t, at_risk(CauseId::kRuntimeHung, Severity::kCritical))) << t;
  auto write = at(40, at_risk(CauseId::kRuntimeHung, Severity::kCritical));
  ASSERT_TRUE(write);
  EXPECT_TRUE(write->problem);
}

TEST_F(PolicyTest, ClearsAfterClearAfterOfHealthyVerdictsOnly) {
  ASSERT_TRUE(at(0, unhealthy(CauseId::kRuntimeHung)));
  EXPECT_FALSE(at(10, healthy()));
  EXPECT_FALSE(at(60, at_risk(CauseId::kRuntimeSlow, Severity::kWarning)));  // not healthy: stays True
  EXPECT_FALSE(at(70, healthy()));
  EXPECT_FALSE(at(189, healthy()));
  auto write = at(190, healthy());
  ASSERT_TRUE(write);
  EXPECT_FALSE(write->problem);
  EXPECT_EQ(write->change, ConditionChange::kRecovered);
}

TEST_F(PolicyTest, ACauseChangeWhileTrueIsWrittenOnce) {
  ASSERT_TRUE(at(0, unhealthy(CauseId::kRuntimeHung)));
  EXPECT_FALSE(at(40, unhealthy(CauseId::kRuntimeHung)));
  auto write = at(41, unhealthy(CauseId::kShimHung));
  ASSERT_TRUE(write);
  EXPECT_EQ(write->change, ConditionChange::kCauseChanged);
  EXPECT_EQ(write->cause, CauseId::kShimHung);
  EXPECT_FALSE(at(42, unhealthy(CauseId::kShimHung)));
}

TEST_F(PolicyTest, FlappingIsRateLimitedAndTheLatestWinsAfterTheInterval) {
  ASSERT_TRUE(at(0, unhealthy(CauseId::kRuntimeHung)));
  // The reason flips every second; within the interval nothing is written.
  for (int t = 1; t < 30; ++t)
    EXPECT_FALSE(at(t, unhealthy(t % 2 ? CauseId::kShimHung : CauseId::kRuntimeHung))) << t;
  auto write = at(31, unhealthy(CauseId::kShimHung));
  ASSERT_TRUE(write);
  EXPECT_EQ(write->cause, CauseId::kShimHung);
}

TEST_F(PolicyTest, TheHeartbeatRewritesWhatStands) {
  ASSERT_TRUE(at(0, unhealthy(CauseId::kKubeletInternal)));
  EXPECT_FALSE(at(299, unhealthy(CauseId::kKubeletInternal)));
  auto write = at(300, unhealthy(CauseId::kKubeletInternal));
  ASSERT_TRUE(write);
  EXPECT_EQ(write->change, ConditionChange::kHeartbeat);
  EXPECT_TRUE(write->problem);
  // In between (at risk, not critical): the heartbeat of True, no change.
  auto between = at(600, at_risk(CauseId::kRuntimeSlow, Severity::kWarning));
  ASSERT_TRUE(between);
  EXPECT_EQ(between->change, ConditionChange::kHeartbeat);
  EXPECT_EQ(between->cause, CauseId::kKubeletInternal);
}

TEST_F(PolicyTest, AnUnconfirmedWriteStaysDue) {
  auto first = policy.observe(unhealthy(CauseId::kRuntimeHung), start);
  ASSERT_TRUE(first);
  auto again = policy.observe(unhealthy(CauseId::kRuntimeHung), start + seconds(5));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->change, ConditionChange::kUnhealthy);
  policy.confirm(*again, start + seconds(5));
  EXPECT_FALSE(policy.observe(unhealthy(CauseId::kRuntimeHung), start + seconds(6)));
}

// A blind agent's verdict, however bad it reads (unhealthy, a critical
// cause advising a runtime restart), is no verdict on the node.
ConditionVerdict blind(ConditionVerdict v) {
  v.blind = true;
  return v;
}

TEST_F(PolicyTest, ABlindAgentNeverSetsTrue) {
  for (int t = 0; t <= 900; t += 5) {
    EXPECT_FALSE(at(t, blind(unhealthy(CauseId::kRuntimeUnavailable)))) << t;
    EXPECT_FALSE(at(t + 1, blind(at_risk(CauseId::kRuntimeHung, Severity::kCritical)))) << t;
  }
  EXPECT_FALSE(policy.written());
}

TEST_F(PolicyTest, ABlindAgentWritesNoFalseEitherAndItsTimeCountsForNothing) {
  // Healthy, then blind past clear_after: no False (the agent does not know);
  // seeing again, clear_after starts over.
  EXPECT_FALSE(at(0, healthy()));
  for (int t = 1; t <= 300; t += 10) EXPECT_FALSE(at(t, blind(healthy()))) << t;
  EXPECT_FALSE(at(301, healthy()));
  EXPECT_FALSE(at(420, healthy()));
  EXPECT_TRUE(at(421, healthy()));
}

TEST_F(PolicyTest, ACriticalHoldDoesNotRunWhileBlind) {
  EXPECT_FALSE(at(0, at_risk(CauseId::kShimHung, Severity::kCritical)));
  EXPECT_FALSE(at(20, blind(at_risk(CauseId::kShimHung, Severity::kCritical))));
  EXPECT_FALSE(at(40, at_risk(CauseId::kShimHung, Severity::kCritical)));  // the hold starts again at 40
  EXPECT_FALSE(at(69, at_risk(CauseId::kShimHung, Severity::kCritical)));
  EXPECT_TRUE(at(70, at_risk(CauseId::kShimHung, Severity::kCritical)));
}

TEST(ConditionReason, EveryCauseIsCamelCase) {
  EXPECT_EQ(condition_reason(CauseId::kPodStatusSlow), "PodStatusSlow");
  EXPECT_EQ(condition_reason(CauseId::kRuntimeUnavailable), "RuntimeUnavailable");
  for (CauseId id : kAllCauses) {
    const std::string r = condition_reason(id);
    ASSERT_FALSE(r.empty());
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(r[0]))) << r;
    EXPECT_EQ(r.find('_'), std::string::npos) << r;
  }
}

TEST(EventCorrelator, ARepeatWithinTheWindowPatchesTheCount) {
  EventCorrelator events(seconds(600));
  const TimePoint wall{};
  const MonoTime mono{};
  bool repeat = true;
  NodeEvent first = events.next("worker-3", "Warning", "RuntimeHung", "m1", wall, mono, &repeat);
  EXPECT_FALSE(repeat);
  EXPECT_EQ(first.count, 1);
  EXPECT_EQ(first.name.rfind("worker-3.", 0), 0u);
  events.sent(first, mono);
  NodeEvent second = events.next("worker-3", "Warning", "RuntimeHung", "m2", wall + seconds(60), mono + seconds(60),
                                 &repeat);
  EXPECT_TRUE(repeat);
  EXPECT_EQ(second.name, first.name);
  EXPECT_EQ(second.count, 2);
  EXPECT_EQ(second.message, "m2");
  events.sent(second, mono + seconds(60));
  // Another reason is another Event; past the window the same reason is too.
  events.next("worker-3", "Warning", "ShimHung", "m", wall, mono, &repeat);
  EXPECT_FALSE(repeat);
  NodeEvent late = events.next("worker-3", "Warning", "RuntimeHung", "m3", wall + seconds(700),
                               mono + seconds(700), &repeat);
  EXPECT_FALSE(repeat);
  EXPECT_EQ(late.count, 1);
}

TEST(EventCorrelator, AFailedCallIsForgotten) {
  EventCorrelator events;
  bool repeat = false;
  NodeEvent e = events.next("n", "Normal", "PLEGHealthy", "m", TimePoint{}, MonoTime{}, &repeat);
  events.sent(e, MonoTime{});
  events.failed(e);
  events.next("n", "Normal", "PLEGHealthy", "m", TimePoint{}, MonoTime{} + seconds(1), &repeat);
  EXPECT_FALSE(repeat);
}

}  // namespace
}  // namespace plegscope
