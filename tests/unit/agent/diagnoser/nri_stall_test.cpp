// nri_stall at its thresholds: an NRI plugin's calls over the runtime's
// metrics window, slower than 1 s or given up at NRI's request timeout;
// the plugin named as it registered; a warning that never outranks what
// hangs the PLEG's own calls.
#include <limits>

#include "snapshot_builder.h"

namespace plegscope::testing {
namespace {

// containerd's buckets around the threshold (docker/go-metrics' defaults
// are .005 … 1, 2.5, 5, 10, +Inf).
Histogram latency(double fast, double under_1s, double over_1s, double over_10s = 0) {
  Histogram h;
  h.count = fast + under_1s + over_1s + over_10s;
  h.sum = fast * 0.01 + under_1s * 0.9 + over_1s * 2.0 + over_10s * 40;
  h.buckets = {{0.5, fast},
               {1, fast + under_1s},
               {2.5, fast + under_1s + over_1s},
               {10, fast + under_1s + over_1s},
               {std::numeric_limits<double>::infinity(), h.count}};
  return h;
}

void nri_calls(Builder& b, const std::string& plugin, const std::string& operation, Histogram h,
               double timeouts = 0) {
  b.s.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  b.s.runtime_metrics.reachable = true;
  b.s.runtime_metrics.kind = "containerd";
  b.s.runtime_metrics.nri_window_seconds = 300;
  b.s.runtime_metrics.nri_active_plugins = 1;
  b.s.runtime_metrics.nri_calls.push_back({plugin, operation, std::move(h), timeouts});
}

// A plugin cut off at NRI's timeout, then answering again: a warning while
// the cut-off is recent, at info once it is older than the diagnoser's
// window (30 s: the calls since did not wait on it); slow calls beyond the
// cut-off ones keep the warning.
TEST(NriStall, ACutOffOlderThanTheWindowIsInfo) {
  Builder b;
  nri_calls(b, "10-stall", "CreateContainer", latency(50, 0, 3), 3);
  b.s.runtime_metrics.nri_calls.front().seconds_since_timeout = 30;
  auto recent = find(b.report(), CauseId::kNriStall);
  ASSERT_NE(recent, nullptr);
  EXPECT_EQ(recent->severity, Severity::kWarning);
  b.s.runtime_metrics.nri_calls.front().seconds_since_timeout = 31;
  Report r = b.report();
  const Cause* old = find(r, CauseId::kNriStall);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->severity, Severity::kInfo);
  EXPECT_TRUE(has_evidence(*old, "nri_plugin_seconds_since_timeout{plugin=10-stall,operation=CreateContainer}"));
  EXPECT_EQ(r.status, Status::kHealthy) << r.summary;
  b.s.runtime_metrics.nri_calls.front().latency = latency(50, 0, 4);  // a slow call besides the cut-off ones
  EXPECT_EQ(find(b.report(), CauseId::kNriStall)->severity, Severity::kWarning);
}

// A plugin seen answering again since its last cut-off (it reconnected and
// its calls end fast) is info at once; a slow call since keeps the warning.
TEST(NriStall, APluginAnsweringAgainSinceItsCutOffIsInfo) {
  Builder b;
  nri_calls(b, "10-stall", "CreateContainer", latency(52, 0, 3), 3);
  auto& n = b.s.runtime_metrics.nri_calls.front();
  n.seconds_since_timeout = 10;
  n.since_timeout = latency(2, 0, 0);
  Report r = b.report();
  const Cause* again = find(r, CauseId::kNriStall);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->severity, Severity::kInfo);
  EXPECT_TRUE(has_evidence(*again, "nri_plugin_calls_since_timeout{plugin=10-stall,operation=CreateContainer}"));
  EXPECT_EQ(r.status, Status::kHealthy) << r.summary;

  n.since_timeout = latency(0, 0, 0);
  EXPECT_EQ(find(b.report(), CauseId::kNriStall)->severity, Severity::kWarning) << "no call since: not yet known";
  n.since_timeout = latency(1, 0, 1);
  n.latency = latency(52, 0, 4);
  EXPECT_EQ(find(b.report(), CauseId::kNriStall)->severity, Severity::kWarning) << "slow again since";
}

TEST(NriStall, FastPluginNamesNothing) {
  Builder b;
  nri_calls(b, "10-stall", "CreateContainer", latency(200, 0, 0));
  const Report r = b.report();
  EXPECT_EQ(find(r, CauseId::kNriStall), nullptr);
  EXPECT_EQ(r.status, Status::kHealthy);
}

TEST(NriStall, ACallJustBelowAndAboveOneSecond) {
  Builder b;
  nri_calls(b, "10-stall", "CreateContainer", latency(50, 1, 0));  // in (0.5 s, 1 s]
  EXPECT_EQ(find(b.report(), CauseId::kNriStall), nullptr);
  b.s.runtime_metrics.nri_calls.front().latency = latency(50, 0, 1);  // in (1 s, 2.5 s]
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kNriStall);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_DOUBLE_EQ(c->confidence, 0.5);
  EXPECT_EQ(c->advice, Advice::kNone);
  EXPECT_NE(c->summary.find("NRI plugin 10-stall"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("CreateContainer"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("1 call slower than 1s"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("do not wait on it"), std::string::npos) << c->summary;
  // A warning on a healthy PLEG: someone should act, the PLEG is fine.
  EXPECT_TRUE(r.healthy);
  EXPECT_EQ(r.status, Status::kAtRisk);
}

TEST(NriStall, TheThresholdReadsTheBucketBelowIt) {
  Builder b;
  DiagnoserThresholds t;
  t.nri_slow_seconds = 0.9;  // no bucket bound at 0.9: judged above 0.5 s
  nri_calls(b, "10-stall", "StopContainer", latency(50, 1, 0));
  EXPECT_EQ(find(b.report(), CauseId::kNriStall), nullptr);
  EXPECT_NE(find(b.report(t), CauseId::kNriStall), nullptr);
}

TEST(NriStall, NoTimeoutAndOneGivenUp) {
  Builder b;
  nri_calls(b, "10-stall", "StopPodSandbox", latency(20, 0, 0), 0);
  EXPECT_EQ(find(b.report(), CauseId::kNriStall), nullptr);
  b.s.runtime_metrics.nri_calls.front() = {"10-stall", "StopPodSandbox", latency(20, 0, 1), 1};
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kNriStall);
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(c->confidence, 0.7);
  ASSERT_FALSE(c->evidence.empty());
  EXPECT_EQ(c->evidence[0].signal, "nri_plugin_timeouts{plugin=10-stall,operation=StopPodSandbox}");
  EXPECT_EQ(c->evidence[0].value, 1);
  EXPECT_NE(c->summary.find("1 call given up at the runtime's NRI request timeout"), std::string::npos)
      << c->summary;
}

TEST(NriStall, NamesThePluginThatTimedOutAmongSeveral) {
  Builder b;
  nri_calls(b, "05-slow", "CreateContainer", latency(10, 0, 3));
  nri_calls(b, "20-stuck", "RunPodSandbox", latency(10, 0, 1), 1);
  const auto c = find(b.report(), CauseId::kNriStall);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->summary.find("NRI plugin 20-stuck"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("RunPodSandbox"), std::string::npos) << c->summary;
}

TEST(NriStall, NotFromAnUnreadPage) {
  Builder b;
  nri_calls(b, "10-stall", "CreateContainer", latency(0, 0, 1), 1);
  b.s.runtime_metrics.reachable = false;
  EXPECT_EQ(find(b.report(), CauseId::kNriStall), nullptr);
}

TEST(NriStall, RanksBelowAHangOfThePlegsOwnCalls) {
  Builder b;
  nri_calls(b, "10-stall", "StopContainer", latency(0, 0, 0, 1), 1);
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 40;
  const Report r = b.report();
  ASSERT_GE(r.causes.size(), 2u);
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
  EXPECT_NE(find(r, CauseId::kNriStall), nullptr);
}

}  // namespace
}  // namespace plegscope::testing
