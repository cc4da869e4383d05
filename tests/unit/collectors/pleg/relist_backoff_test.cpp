// The do-no-harm rule on its own: relist outcomes in, period out.
#include "pleg/relist_backoff.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include "fake_clock.h"
#include "fake_runtime.h"
#include "pleg/generic_pleg.h"

namespace plegscope {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr GrpcCode kDeadlineExceeded = GrpcCode::kDeadlineExceeded;
constexpr GrpcCode kUnavailable = GrpcCode::kUnavailable;
constexpr GrpcCode kResourceExhausted = GrpcCode::kResourceExhausted;

RelistOutcome took(Duration d) { return {d, GrpcCode::kOk}; }
RelistOutcome failed(GrpcCode code) { return {milliseconds(5), code}; }

TEST(RelistBackoff, HealthyRelistsKeepTheBasePeriod) {
  RelistBackoff b(seconds(1), seconds(10));
  for (int i = 0; i < 100; ++i) b.record(took(milliseconds(900)));
  EXPECT_EQ(b.period(), seconds(1));
  EXPECT_FALSE(b.stretch());
}

TEST(RelistBackoff, StretchesOnlyAfterSeveralLongRelists) {
  RelistBackoff b(seconds(1), seconds(10));
  b.record(took(milliseconds(1500)));
  b.record(took(milliseconds(1500)));
  EXPECT_EQ(b.period(), seconds(1)) << "two long relists are not yet a pattern";
  b.record(took(milliseconds(1500)));
  EXPECT_EQ(b.period(), seconds(2));
  b.record(took(milliseconds(1500)));
  EXPECT_EQ(b.period(), seconds(4));
  b.record(took(milliseconds(1500)));
  b.record(took(milliseconds(1500)));
  EXPECT_EQ(b.period(), seconds(10)) << "bounded by the maximum";
  b.record(took(milliseconds(1500)));
  EXPECT_EQ(b.period(), seconds(10));
  auto stretch = b.stretch();
  ASSERT_TRUE(stretch);
  EXPECT_EQ(stretch->period, seconds(10));
  EXPECT_EQ(stretch->reason,
            "relist period stretched to 10s (flag 1s, at most 10s) to spare a struggling runtime: "
            "5 of the last 5 relists were slow or failed (last took 1.5s)");
}

TEST(RelistBackoff, TheLastSlowRelistIsSaidToTheMillisecond) {
  RelistBackoff b(seconds(1), seconds(10));
  for (int i = 0; i < 3; ++i) b.record(took(std::chrono::nanoseconds(2'394'490'126)));
  auto stretch = b.stretch();
  ASSERT_TRUE(stretch);
  EXPECT_NE(stretch->reason.find("(last took 2.394s)"), std::string::npos) << stretch->reason;
}

TEST(RelistBackoff, ScatteredLongRelistsCountInTheWindow) {
  RelistBackoff b(seconds(1), seconds(10));
  for (auto ms : {1500, 200, 1500, 200, 1500}) b.record(took(milliseconds(ms)));
  EXPECT_EQ(b.period(), seconds(2)) << "3 of the last 5";
}

TEST(RelistBackoff, ComesBackDownOneHalvingPerHealthyRelist) {
  RelistBackoff b(seconds(1), seconds(10));
  for (int i = 0; i < 8; ++i) b.record(took(seconds(3)));
  ASSERT_EQ(b.period(), seconds(10));
  b.record(took(milliseconds(100)));
  EXPECT_EQ(b.period(), seconds(5));
  b.record(took(milliseconds(100)));
  EXPECT_EQ(b.period(), milliseconds(2500));
  b.record(took(milliseconds(100)));
  b.record(took(milliseconds(100)));
  b.record(took(milliseconds(100)));
  EXPECT_EQ(b.period(), seconds(1));
  EXPECT_FALSE(b.stretch());
}

TEST(RelistBackoff, DeadlineAndUnavailableStrainOtherErrorsDoNot) {
  RelistBackoff b(seconds(1), seconds(10));
  for (int i = 0; i < 5; ++i) b.record(failed(kResourceExhausted));
  EXPECT_EQ(b.period(), seconds(1)) << "an answer too large is not the runtime drowning";
  b.record(failed(kDeadlineExceeded));
  b.record(failed(kUnavailable));
  b.record(failed(kUnavailable));
  EXPECT_EQ(b.period(), seconds(2));
  ASSERT_TRUE(b.stretch());
  EXPECT_NE(b.stretch()->reason.find("(last failed with UNAVAILABLE)"), std::string::npos)
      << b.stretch()->reason;
}

TEST(RelistBackoff, ZeroMaximumTurnsItOff) {
  RelistBackoff b(seconds(1), seconds(0));
  for (int i = 0; i < 10; ++i) b.record(took(seconds(5)));
  EXPECT_EQ(b.period(), seconds(1));
  EXPECT_FALSE(b.stretch());
}

TEST(RelistBackoff, ALongerBaseIsNeverShortenedAndCapsTheStretch) {
  RelistBackoff b(seconds(1), seconds(10));
  for (int i = 0; i < 5; ++i) b.record(took(seconds(3)));
  ASSERT_EQ(b.period(), seconds(8));
  b.set_base(seconds(300));  // evented mode's safety-net relist
  EXPECT_EQ(b.period(), seconds(300));
  b.record(took(seconds(400)));
  EXPECT_EQ(b.period(), seconds(300));
  EXPECT_FALSE(b.stretch());
  b.set_base(seconds(1));  // fall-back to generic pace
  EXPECT_EQ(b.period(), seconds(1));
}

// The rule wired into GenericPleg: a fake runtime whose lists take fake time.
class GenericPlegBackoffTest : public ::testing::Test {
 protected:
  GenericPlegBackoffTest() : metrics(registry) {
    runtime.add_sandbox("s1", "uid-1");
    runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
    runtime.on_call = [this](const std::string& op) {
      if (op == op::kListPodSandbox || op == op::kListContainers) clock.step(list_takes);
    };
  }
  double period_gauge() {
    for (const auto& family : registry.Collect())
      if (family.name == "pleg_relist_period_seconds") return family.metric.at(0).gauge.value;
    return -1;
  }

  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics;
  Duration list_takes = milliseconds(1);
};

TEST_F(GenericPlegBackoffTest, SlowListsStretchThePeriodAndTheGaugeSaysSo) {
  GenericPleg pleg(runtime, clock, cache, metrics, GenericPlegOptions{100, kGenericRelistTiming});
  EXPECT_EQ(period_gauge(), 1.0);
  list_takes = milliseconds(800);  // two lists: 1.6 s per relist, longer than the 1 s period
  for (int i = 0; i < 3; ++i) pleg.relist();
  EXPECT_EQ(pleg.current_period(), seconds(2));
  EXPECT_EQ(period_gauge(), 2.0);
  ASSERT_TRUE(pleg.stretch());
  EXPECT_EQ(pleg.stretch()->period, seconds(2));
  EXPECT_EQ(pleg.timing().period, seconds(1)) << "the configured timing is untouched";
  EXPECT_TRUE(pleg.healthy().healthy) << "health keeps the kubelet's threshold";

  list_takes = milliseconds(1);
  pleg.relist();
  EXPECT_EQ(pleg.current_period(), seconds(1));
  EXPECT_FALSE(pleg.stretch());
  EXPECT_EQ(period_gauge(), 1.0);
}

TEST_F(GenericPlegBackoffTest, OffWithZeroMaximum) {
  GenericPleg pleg(runtime, clock, cache, metrics,
                   GenericPlegOptions{100, kGenericRelistTiming, seconds(0)});
  list_takes = seconds(2);
  for (int i = 0; i < 10; ++i) pleg.relist();
  EXPECT_EQ(pleg.current_period(), seconds(1));
  EXPECT_FALSE(pleg.stretch());
}

TEST_F(GenericPlegBackoffTest, UnavailableFromTheRuntimeStretchesAMissingSocketDoesNot) {
  GenericPleg pleg(runtime, clock, cache, metrics, GenericPlegOptions{100, kGenericRelistTiming});
  runtime.fail[op::kListPodSandbox] = kUnavailable;
  runtime.failures_not_sent = true;  // no socket: nothing reached the runtime
  for (int i = 0; i < 5; ++i) pleg.relist();
  EXPECT_EQ(pleg.current_period(), seconds(1)) << "a runtime that is away is looked for every period";
  runtime.failures_not_sent = false;
  for (int i = 0; i < 3; ++i) pleg.relist();
  EXPECT_EQ(pleg.current_period(), seconds(2));
  EXPECT_NE(pleg.stretch()->reason.find("failed with UNAVAILABLE"), std::string::npos);
}

TEST_F(GenericPlegBackoffTest, UpdateToEventedTimingResetsTheStretch) {
  GenericPleg pleg(runtime, clock, cache, metrics, GenericPlegOptions{100, kGenericRelistTiming});
  list_takes = milliseconds(800);
  for (int i = 0; i < 4; ++i) pleg.relist();
  ASSERT_EQ(pleg.current_period(), seconds(4));
  pleg.update(kEventedRelistTiming);
  EXPECT_EQ(pleg.current_period(), seconds(300));
  EXPECT_EQ(period_gauge(), 300.0);
  EXPECT_FALSE(pleg.stretch());
}

}  // namespace
}  // namespace plegscope
