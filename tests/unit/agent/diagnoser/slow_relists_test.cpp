// The diagnoser where it matters most: relists so slow that few complete.
// Evidence comes from the relist in progress and the calls themselves, every
// non-healthy verdict carries a cause, and causes that show together are
// both named.
#include "snapshot_builder.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;

// `n` calls of `seconds` each, the newest ending now, one every `every` s.
OperationStats calls(int n, double seconds, double every) {
  OperationStats s;
  s.count = static_cast<uint64_t>(n);
  for (int i = 0; i < n; ++i) s.recent.push_back({kNow - secs(every * (n - 1 - i)), seconds, GrpcCode::kOk, {}});
  s.p50_seconds = s.p99_seconds = s.max_seconds = seconds;
  return s;
}

// A node that has not finished its first relist: lists take ~4 s each and
// the initial relist, inspecting 20 pods with two filtered lists each, has
// been running for `elapsed` seconds.
Builder first_relist_with_slow_lists(double elapsed, int inspected) {
  Builder b;
  b.s.timeline.clear();
  RelistRecord p = relist(elapsed, 8, elapsed - 8);
  p.start = kNow - secs(elapsed);
  p.in_progress = true;
  p.initial = true;
  p.lists_done = 2;
  p.pods_changed = 20;
  p.events_found = 60;
  p.pods_inspected = inspected;
  p.status_calls = inspected * 5;
  b.s.in_progress = p;
  b.s.relist_in_progress_since = p.start;
  b.s.last_seen = p.start;
  b.s.operations[op::kListPodSandbox] = calls(1 + inspected, 4, 8);
  b.s.operations[op::kListContainers] = calls(1 + inspected, 4, 8);
  b.s.operations[op::kListPodSandbox].in_flight = 1;
  b.s.operations[op::kListPodSandbox].oldest_in_flight_seconds = 2.5;
  return b;
}

TEST(SlowRelists, FirstRelistStillRunningNamesTheSlowLists) {
  Builder b = first_relist_with_slow_lists(60, 6);
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty()) << r.summary;
  EXPECT_EQ(r.status, Status::kAtRisk);
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeSlow) << r.summary;
  EXPECT_GE(r.causes.front().confidence, 0.6);
  EXPECT_TRUE(has_evidence(r.causes.front(), "list_call_seconds_recent{"));
  // 6 of 20 pods in 60 s: about 200 s in all, past the 3-minute threshold.
  ASSERT_TRUE(r.seconds_to_unhealthy);
  EXPECT_NEAR(*r.seconds_to_unhealthy, 120, 1);
  EXPECT_NE(r.summary.find("late"), std::string::npos) << r.summary;
  EXPECT_EQ(r.summary.find("nothing to do"), std::string::npos);
}

TEST(SlowRelists, FirstListStillInFlightIsNamedBeforeAnyAnswer) {
  Builder b;
  b.s.timeline.clear();
  b.s.healthy = false;
  b.s.health_message = "pleg has yet to be successful";
  b.s.last_seen.reset();
  RelistRecord p;
  p.start = kNow - secs(2.5);
  p.duration = secs(2.5);
  p.in_progress = true;
  p.initial = true;
  b.s.in_progress = p;
  b.s.operations[op::kListPodSandbox] = OperationStats{};
  b.s.operations[op::kListPodSandbox].in_flight = 1;
  b.s.operations[op::kListPodSandbox].oldest_in_flight_seconds = 2.5;
  Report r = b.report();
  EXPECT_EQ(r.status, Status::kUnhealthy);
  ASSERT_FALSE(r.causes.empty()) << r.summary;
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeSlow) << r.summary;
  EXPECT_NE(r.summary.find("ListPodSandbox"), std::string::npos) << r.summary;
}

TEST(SlowRelists, UnhealthyWithoutAnyMeasurementStillHasACause) {
  Builder b;
  b.s.timeline.clear();
  b.s.operations.clear();
  b.s.healthy = false;
  b.s.health_message = "pleg has yet to be successful";
  b.s.last_seen.reset();
  Report r = b.report();
  EXPECT_EQ(r.status, Status::kUnhealthy);
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeUnavailable);
}

// The agent just started: no relist has succeeded, and its first relist
// has run `duration` seconds so far.
Builder first_relist_running(double duration, double list, double status) {
  Builder b;
  b.s.timeline.clear();
  b.s.healthy = false;
  b.s.health_message = "pleg has yet to be successful";
  b.s.last_seen.reset();
  RelistRecord p = relist(duration, list, status);
  p.start = kNow - secs(duration);
  p.in_progress = true;
  p.initial = true;
  b.s.in_progress = p;
  return b;
}

// 40 ms in, with its list answers. Shares of a relist just begun are no
// evidence of a slow runtime: the one measured fact is how long it has run.
TEST(SlowRelists, FirstRelistJustBegunNamesNoSlowRuntime) {
  Report r = first_relist_running(0.04, 0.002, 0.0).report();
  EXPECT_EQ(r.status, Status::kUnhealthy);
  ASSERT_EQ(r.causes.size(), 1u) << r.summary;
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeUnavailable) << r.summary;
  EXPECT_FALSE(find(r, CauseId::kRuntimeSlow));
  EXPECT_TRUE(has_evidence(r.causes.front(), "first_relist_running_seconds")) << r.summary;
  EXPECT_NE(r.summary.find("first relist has run for"), std::string::npos) << r.summary;
}

// Once it runs past two periods it is late, and the share of it in the
// lists is evidence.
TEST(SlowRelists, FirstRelistPastTwoPeriodsIsAttributedByItsShares) {
  Report r = first_relist_running(5, 4.8, 0.1).report();
  EXPECT_EQ(r.status, Status::kUnhealthy);
  ASSERT_FALSE(r.causes.empty()) << r.summary;
  EXPECT_NE(r.causes.front().id, CauseId::kRuntimeUnavailable) << r.summary;
}

// ~150 pods changing every relist, status calls ~20 ms each: relists of
// 8-11 s, of which 99% is per-pod inspection.
Builder storm_with_long_relists() {
  Builder b;
  RelistRecord r = storm_relist(150, 9.5);
  r.duration = secs(9.6);
  r.pods_changed = 150;
  r.events_found = 180;
  r.status_calls = 540;
  b.s.timeline.resize(1);
  for (int i = 2; i >= 1; --i) {
    r.start = kNow - secs(10.0 * i + 1);
    b.s.timeline.push_back(r);
  }
  RelistRecord p = r;
  p.start = kNow - secs(1);
  p.duration = secs(1);
  p.in_progress = true;
  p.status_time = secs(0.9);
  p.pods_inspected = 30;
  p.status_calls = 100;
  p.top_pods.clear();
  b.s.in_progress = p;
  b.s.last_seen = p.start;
  b.s.operations[op::kContainerStatus] = calls(100, 0.02, 0.1);
  b.s.operations[op::kPodSandboxStatus] = calls(100, 0.02, 0.1);
  return b;
}

TEST(SlowRelists, StormWhoseRelistsLastSeveralPeriods) {
  Report r = storm_with_long_relists().report();
  ASSERT_FALSE(r.causes.empty()) << r.summary;
  EXPECT_EQ(r.causes.front().id, CauseId::kEventStorm) << r.summary;
  EXPECT_GE(r.causes.front().confidence, 0.75);
  EXPECT_EQ(r.status, Status::kAtRisk);
  ASSERT_TRUE(r.relist.events_late_by_seconds);
  EXPECT_NEAR(*r.relist.events_late_by_seconds, 9.6, 0.01);
  EXPECT_NE(r.summary.find("late"), std::string::npos) << r.summary;
  EXPECT_FALSE(r.seconds_to_unhealthy) << "the relists end; a storm of 10 s relists is not 3 minutes away";
}

TEST(SlowRelists, StormNamedFromTheRelistInProgress) {
  Builder b;  // twenty fast, quiet relists, then one that found 60 changed pods
  RelistRecord p = relist(0.4, 0.004, 0.3);
  p.start = kNow - secs(0.4);
  p.in_progress = true;
  p.lists_done = 2;
  p.pods_changed = 60;
  p.events_found = 70;
  p.pods_inspected = 10;
  p.top_pods = {PodEventCount::of("uid-7", "web-7", "shop", 4)};
  b.s.in_progress = p;
  b.s.timeline.back().pods_changed = 55;  // and the one before found as many
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty()) << r.summary;
  EXPECT_EQ(r.causes.front().id, CauseId::kEventStorm) << r.summary;
  // The remedy points at the top pods: the running relist already names them.
  ASSERT_FALSE(r.events.top_pods.empty());
  EXPECT_EQ(r.events.top_pods.front().name, "web-7");
}

TEST(SlowRelists, HealthyNodeWithRelistsOfThreePeriodsGetsAWarning) {
  Builder b;
  RelistRecord r3 = relist(3.0, 0.2, 2.7);  // below every rule's threshold
  r3.pods_changed = 4;
  b.relists(5, r3);
  b.s.operations[op::kContainerStatus] = calls(60, 0.09, 0.3);
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty()) << r.summary;
  EXPECT_EQ(r.causes.front().severity, Severity::kWarning);
  EXPECT_EQ(r.causes.front().id, CauseId::kPodStatusSlow) << r.summary;
  EXPECT_EQ(r.summary.find("nothing to do"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("3 times the 1s period"), std::string::npos) << r.summary;
}

TEST(SlowRelists, RelistsNearThePeriodSayNothingToDo) {
  Builder b;
  b.relists(5, relist(1.5, 0.2, 1.2));
  Report r = b.report();
  EXPECT_EQ(r.status, Status::kHealthy) << r.summary;
  EXPECT_NE(r.summary.find("nothing to do"), std::string::npos);
}

// Slow lists and heavy IO pressure together: both named, pressure first.
TEST(SlowRelists, PressureAndSlowListsAreBothNamedPressureFirst) {
  Builder b = first_relist_with_slow_lists(30, 2);
  b.s.pressure->io_some_avg10 = 62;
  Report r = b.report();
  ASSERT_GE(r.causes.size(), 2u) << r.summary;
  EXPECT_EQ(r.causes[0].id, CauseId::kNodePressure) << r.summary;
  EXPECT_EQ(r.causes[1].id, CauseId::kRuntimeSlow) << r.summary;
  EXPECT_NE(r.causes[1].summary.find("Node pressure may explain it"), std::string::npos);
}

TEST(SlowRelists, MildPressureDoesNotOutrankTheSlowRuntime) {
  Builder b = first_relist_with_slow_lists(30, 2);
  b.s.pressure->io_some_avg10 = 26;  // just over the threshold, and the lists alone are slow
  b.s.operations[op::kListContainers] = calls(3, 4, 8);
  Report r = b.report();
  ASSERT_GE(r.causes.size(), 2u) << r.summary;
  EXPECT_EQ(r.causes[0].id, CauseId::kRuntimeSlow) << r.summary;
}

TEST(SlowRelists, StatusSlowNamedFromACallStillInFlight) {
  Builder b;
  b.s.operations[op::kContainerStatus] = calls(4, 0.9, 1);
  b.s.operations[op::kContainerStatus].in_flight = 1;
  b.s.operations[op::kContainerStatus].oldest_in_flight_seconds = 1.2;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kPodStatusSlow);
  ASSERT_TRUE(c) << r.summary;
  EXPECT_NE(c->summary.find("still in flight"), std::string::npos) << c->summary;
}

TEST(SlowRelists, OldSlowCallsAreNotEvidence) {
  Builder b;
  OperationStats old = calls(10, 4, 1);
  for (auto& sample : old.recent) sample.end -= secs(120);  // two minutes ago
  b.s.operations[op::kListContainers] = old;
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeSlow));
}

TEST(SlowRelists, EveryStatusButHealthyCarriesACause) {
  for (const Builder& b : {first_relist_with_slow_lists(60, 6), storm_with_long_relists(), Builder()}) {
    Report r = b.report();
    EXPECT_EQ(r.status == Status::kHealthy, r.causes.empty()) << r.summary;
  }
}

TEST(SlowRelists, TheStretchedPeriodIsInTheReport) {
  Builder b;
  EXPECT_FALSE(b.report().relist.stretched_period_seconds);
  b.s.stretched_period = secs(8);
  b.s.stretch_reason = "list calls failed DEADLINE_EXCEEDED";
  Report r = b.report();
  ASSERT_TRUE(r.relist.stretched_period_seconds);
  EXPECT_DOUBLE_EQ(*r.relist.stretched_period_seconds, 8);
  EXPECT_EQ(r.relist.stretch_reason, "list calls failed DEADLINE_EXCEEDED");
}

}  // namespace
}  // namespace plegscope
