// Event lag and the monotonic age, against the fake runtime's timestamps on a
// fake clock: the lag a node's PLEG adds to every lifecycle change.
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <map>
#include <string>

#include "fake_clock.h"
#include "fake_runtime.h"
#include "pleg/event_lag.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"

namespace plegscope {
namespace {

using T = PodLifecycleEventType;
using namespace std::chrono;

int64_t nanos(TimePoint t) { return duration_cast<nanoseconds>(t.time_since_epoch()).count(); }

class PlegEventLagTest : public ::testing::Test {
 protected:
  PlegEventLagTest()
      : metrics(registry),
        pleg(runtime, clock, cache, metrics, GenericPlegOptions{1000, kGenericRelistTiming},
             [this](const RelistRecord& r) { records.push_back(r); }) {}

  prometheus::ClientMetric::Histogram lag(T type) { return metrics.event_lag(type).Collect().histogram; }
  double invalid(T type) { return metrics.event_lag_invalid(type).Value(); }
  // One relist a period later, as the runner would start it.
  void next_relist() {
    clock.step(kGenericRelistTiming.period);
    pleg.relist();
  }

  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics;
  GenericPleg pleg;
  std::vector<RelistRecord> records;
};

// As the kubelet's series: an event type's lag appears with its first
// event, so a node without changes exports none, and no evented family
// exists outside evented mode.
TEST_F(PlegEventLagTest, SeriesAppearWithTheirFirstEvent) {
  auto families = [this] {
    std::map<std::string, size_t> out;
    for (const auto& family : registry.Collect()) out[family.name] = family.metric.size();
    return out;
  };
  auto before = families();
  EXPECT_EQ(before.count("pleg_event_lag_seconds"), 0u);
  EXPECT_EQ(before.count("pleg_event_lag_invalid_total"), 0u);
  EXPECT_EQ(before.count("pleg_evented_delivery_lag_seconds"), 0u);
  EXPECT_EQ(before.count("pleg_relist_errors_total"), 0u);
  EXPECT_EQ(before.at("pleg_events_total"), std::size(kAllEventTypes));

  metrics.event_lag(T::ContainerDied).Observe(0.3);
  metrics.event_lag_invalid(T::ContainerStarted).Increment();
  EXPECT_EQ(lag(T::ContainerDied).sample_count, 1u);
  EXPECT_EQ(invalid(T::ContainerStarted), 1);
  auto after = families();
  EXPECT_EQ(after.at("pleg_event_lag_seconds"), 1u);
  EXPECT_EQ(after.at("pleg_event_lag_invalid_total"), 1u);
  EXPECT_EQ(after.count("pleg_evented_delivery_lag_seconds"), 0u);
  // The lean buckets still reach past the 3-minute threshold.
  EXPECT_EQ(lag(T::ContainerDied).bucket.size(), 9u);
  EXPECT_DOUBLE_EQ(lag(T::ContainerDied).bucket[7].upper_bound, 600);
}

TEST_F(PlegEventLagTest, TheInitialRelistMeasuresNothing) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  // Started a day before the agent came: not a lag of the PLEG.
  runtime.times["c1"] = {nanos(clock.now() - hours(24)), nanos(clock.now() - hours(24)), 0};
  pleg.relist();
  EXPECT_EQ(lag(T::ContainerStarted).sample_count, 0u);
  EXPECT_EQ(records.back().lag.count, 0);
}

// A steady node: a change is seen by the next relist, at most one period
// plus that relist's own duration after it happened.
TEST_F(PlegEventLagTest, ASteadyNodeSeesChangesWithinAPeriodAndARelist) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.times["c1"] = {nanos(clock.now() - seconds(5)), nanos(clock.now() - seconds(4)), 0};
  pleg.relist();
  runtime.on_call = [this](const std::string&) { clock.step(milliseconds(3)); };

  // The container dies just after a relist started: the worst case.
  clock.step(milliseconds(1));
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.times["c1"].finished_at = nanos(clock.now());
  const TimePoint died = clock.now();
  clock.step(kGenericRelistTiming.period - milliseconds(1));
  pleg.relist();

  const RelistRecord& r = records.back();
  ASSERT_EQ(lag(T::ContainerDied).sample_count, 1u);
  const double seen = lag(T::ContainerDied).sample_sum;
  EXPECT_GE(seen, to_seconds(kGenericRelistTiming.period) - 0.001);
  EXPECT_LE(seen, to_seconds(kGenericRelistTiming.period + r.duration));
  EXPECT_LE(to_seconds(clock.now() - died), to_seconds(kGenericRelistTiming.period + r.duration));
  ASSERT_EQ(r.lag.count, 1);
  EXPECT_EQ(r.lag.invalid, 0);
  EXPECT_DOUBLE_EQ(to_seconds(r.lag.max), seen);
  ASSERT_EQ(r.lag.worst.size(), 1u);
  EXPECT_EQ(r.lag.worst[0].uid, "uid-1");
  EXPECT_EQ(r.lag.worst[0].name, "pod-uid-1");
  EXPECT_EQ(r.lag.worst[0].namespace_, "default");
  EXPECT_EQ(r.lag.worst[0].container, "c-c1");
  EXPECT_EQ(r.lag.worst[0].type, T::ContainerDied);
  EXPECT_EQ(invalid(T::ContainerDied), 0);
}

TEST_F(PlegEventLagTest, SlowListsGrowTheLag) {
  runtime.add_sandbox("s1", "uid-1");
  pleg.relist();
  auto lag_of_a_start = [&](const std::string& id, Duration per_call) {
    runtime.on_call = [this, per_call](const std::string&) { clock.step(per_call); };
    runtime.add_container(id, "uid-1", cri::CONTAINER_RUNNING, "s1");
    runtime.times[id] = {nanos(clock.now()), nanos(clock.now()), 0};
    next_relist();
    runtime.on_call = nullptr;
    return records.back().lag.max;
  };
  const Duration fast = lag_of_a_start("fast", milliseconds(5));
  const Duration slow = lag_of_a_start("slow", seconds(4));
  EXPECT_LT(fast, seconds(2));
  // Both lists (4 s each) come before the pod's inspection.
  EXPECT_GE(slow, kGenericRelistTiming.period + seconds(8));
  EXPECT_GT(slow, fast);
}

TEST_F(PlegEventLagTest, FutureZeroAndBeforeCreationAreCountedApart) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_CREATED, "s1");
  runtime.add_container("c2", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.add_container("c3", "uid-1", cri::CONTAINER_RUNNING, "s1");
  pleg.relist();
  const TimePoint now = clock.now();
  runtime.set_state("c1", cri::CONTAINER_RUNNING);
  runtime.times["c1"] = {nanos(now), nanos(now + hours(1)), 0};  // in the future
  runtime.set_state("c2", cri::CONTAINER_EXITED);
  runtime.times["c2"] = {nanos(now), nanos(now), 0};  // finished_at missing
  runtime.set_state("c3", cri::CONTAINER_EXITED);
  runtime.times["c3"] = {nanos(now), nanos(now), nanos(now - hours(1))};  // before its creation
  next_relist();
  EXPECT_EQ(invalid(T::ContainerStarted), 1);
  EXPECT_EQ(invalid(T::ContainerDied), 2);
  EXPECT_EQ(lag(T::ContainerStarted).sample_count, 0u) << "never a negative or made-up sample";
  EXPECT_EQ(lag(T::ContainerDied).sample_count, 0u);
  EXPECT_EQ(records.back().lag.invalid, 3);
  EXPECT_EQ(records.back().lag.count, 0);
}

TEST_F(PlegEventLagTest, AHeldBackEventIsMeasuredWhenDelivered) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  pleg.relist();
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.times["c1"] = {nanos(clock.now() - seconds(9)), nanos(clock.now() - seconds(8)), nanos(clock.now())};
  runtime.fail_container_status["c1"] = GrpcCode::kDeadlineExceeded;
  next_relist();
  next_relist();
  EXPECT_EQ(lag(T::ContainerDied).sample_count, 0u);
  runtime.fail_container_status.clear();
  next_relist();
  ASSERT_EQ(lag(T::ContainerDied).sample_count, 1u);
  EXPECT_DOUBLE_EQ(lag(T::ContainerDied).sample_sum, 3.0) << "three periods late, as the kubelet would be";
}

TEST_F(PlegEventLagTest, TheAgeIsMonotonicAndIgnoresWallClockSteps) {
  EXPECT_FALSE(pleg.last_seen_age());
  EXPECT_TRUE(pleg.Collect().at(0).metric.empty()) << "no age before the first relist";
  pleg.relist();
  const double last_seen = metrics.last_seen.Value();
  clock.step(seconds(5));
  clock.step_wall(-hours(3));  // ntpd steps the node's clock back
  ASSERT_TRUE(pleg.last_seen_age());
  EXPECT_EQ(*pleg.last_seen_age(), seconds(5));
  auto families = pleg.Collect();
  ASSERT_EQ(families.at(0).name, "pleg_last_seen_age_seconds");
  EXPECT_DOUBLE_EQ(families.at(0).metric.at(0).gauge.value, 5.0);
  EXPECT_EQ(metrics.last_seen.Value(), last_seen) << "the wall-clock timestamp is the relist's";
  clock.step_wall(hours(6));
  EXPECT_TRUE(pleg.healthy().healthy) << "a wall-clock step does not make the PLEG unhealthy";
}

// Evented mode: the runtime's event carries its created_at; the delivery lag
// is kept apart from the lag to the cache update, which the histogram holds
// as it does in generic mode.
TEST_F(PlegEventLagTest, EventedDeliveryLagIsRecordedApart) {
  EventedPleg evented(runtime, clock, cache, pleg, metrics, registry, EventedPlegOptions{});
  cri::ContainerEventResponse e;
  e.set_container_id("c1");
  e.set_container_event_type(cri::CONTAINER_STOPPED_EVENT);
  e.set_created_at(nanos(clock.now() - milliseconds(40)));
  auto* sandbox = e.mutable_pod_sandbox_status();
  sandbox->set_id("s1");
  sandbox->mutable_metadata()->set_uid("uid-1");
  sandbox->mutable_metadata()->set_name("web");
  sandbox->mutable_metadata()->set_namespace_("shop");
  auto* c = e.add_containers_statuses();
  c->set_id("c1");
  c->set_state(cri::CONTAINER_EXITED);
  c->mutable_metadata()->set_name("app");
  evented.process(e);

  auto delivery = metrics.evented_delivery_lag(T::ContainerDied).Collect().histogram;
  ASSERT_EQ(delivery.sample_count, 1u);
  EXPECT_DOUBLE_EQ(delivery.sample_sum, 0.04);
  ASSERT_EQ(lag(T::ContainerDied).sample_count, 1u);
  EXPECT_DOUBLE_EQ(lag(T::ContainerDied).sample_sum, 0.04);
  EXPECT_EQ(metrics.evented_delivery_lag(T::ContainerStarted).Collect().histogram.sample_count, 0u);

  EventedLag taken = evented.lag_over(kEventedLagWindow);
  ASSERT_EQ(taken.delivery.count, 1);
  EXPECT_EQ(taken.delivery.worst.at(0).name, "web");
  EXPECT_EQ(taken.delivery.worst.at(0).container, "app");
  EXPECT_EQ(taken.cache_update.count, 1);
  clock.step(kEventedLagWindow + seconds(1));
  EXPECT_EQ(evented.lag_over(kEventedLagWindow).delivery.count, 0) << "older than the window";

  // A runtime whose clock runs ahead: counted apart, never a negative lag.
  e.set_container_event_type(cri::CONTAINER_STARTED_EVENT);
  c->set_state(cri::CONTAINER_RUNNING);
  e.set_created_at(nanos(clock.now() + seconds(30)));
  evented.process(e);
  EXPECT_EQ(invalid(T::ContainerStarted), 1);
  EXPECT_EQ(lag(T::ContainerStarted).sample_count, 0u);
  EXPECT_EQ(evented.lag_over(seconds(1)).delivery.invalid, 1);
  EXPECT_EQ(evented.lag_over(seconds(1)).delivery.count, 0);
}

// A runtime that sends no timestamp: the cache ignores a created_at of 0 for
// a pod it knows (older than what it holds), yet the event is still counted
// invalid, once, and never lands in a bucket.
TEST_F(PlegEventLagTest, EventedZeroCreatedAtIsCountedInvalidOnceWhetherOrNotTheCacheTakesIt) {
  EventedPleg evented(runtime, clock, cache, pleg, metrics, registry, EventedPlegOptions{});
  auto event = [&](const std::string& uid, int64_t created_at) {
    cri::ContainerEventResponse e;
    e.set_container_id("c-" + uid);
    e.set_container_event_type(cri::CONTAINER_STOPPED_EVENT);
    e.set_created_at(created_at);
    auto* sandbox = e.mutable_pod_sandbox_status();
    sandbox->set_id("s-" + uid);
    sandbox->mutable_metadata()->set_uid(uid);
    sandbox->mutable_metadata()->set_name("pod-" + uid);
    auto* c = e.add_containers_statuses();
    c->set_id("c-" + uid);
    c->set_state(cri::CONTAINER_EXITED);
    return e;
  };
  evented.process(event("known", nanos(clock.now() - milliseconds(5))));  // cached
  evented.process(event("known", 0));  // older than the cache: no lifecycle event
  evented.process(event("new", 0));    // unknown pod: cached, a lifecycle event
  EXPECT_EQ(invalid(T::ContainerDied), 2);
  EXPECT_EQ(metrics.evented_delivery_lag(T::ContainerDied).Collect().histogram.sample_count, 1u);
  EventedLag taken = evented.lag_over(kEventedLagWindow);
  EXPECT_EQ(taken.delivery.count, 1);
  EXPECT_EQ(taken.delivery.invalid, 2);
  EXPECT_EQ(taken.cache_update.invalid, 2);
}

TEST(LagSummary, MergeEqualsAddingEverySampleToOne) {
  LagSummary a, b, all;
  for (int i = 0; i < 8; ++i) {
    PodLag p{"uid-" + std::to_string(i), "ns", "pod", "c", T::ContainerDied, milliseconds(300 * i)};
    (i % 2 ? a : b).add(p);
    all.add(p);
  }
  b.add_invalid();
  all.add_invalid();
  a.merge(b);
  EXPECT_EQ(a.buckets, all.buckets);
  EXPECT_EQ(a.count, all.count);
  EXPECT_EQ(a.invalid, all.invalid);
  EXPECT_EQ(a.sum, all.sum);
  EXPECT_EQ(a.max, all.max);
  ASSERT_EQ(a.worst.size(), all.worst.size());
  for (size_t i = 0; i < a.worst.size(); ++i) EXPECT_EQ(a.worst[i].uid, all.worst[i].uid);
}

// Found by fuzz_evented: two events created in 1970 by a runtime's clock.
TEST(LagSummary, CenturiesOfLagSaturateTheSumInsteadOfOverflowing) {
  LagSummary a, b;
  const Duration centuries = Duration::max() / 5 * 4;
  a.add({"uid-1", "ns", "pod", "c", T::ContainerDied, centuries});
  a.add({"uid-2", "ns", "pod", "c", T::ContainerDied, centuries});
  EXPECT_EQ(a.sum, Duration::max());
  EXPECT_EQ(a.count, 2);
  b.add({"uid-3", "ns", "pod", "c", T::ContainerDied, centuries});
  a.merge(b);
  EXPECT_EQ(a.sum, Duration::max());
  EXPECT_EQ(a.max, centuries);
}

TEST(LagSummary, KeepsTheWorstPodsOncePerPodAndBoundsThem) {
  LagSummary s;
  for (int i = 0; i < 20; ++i)
    s.add({"uid-" + std::to_string(i), "ns", "pod", "c", T::ContainerDied, milliseconds(100 * i)});
  s.add({"uid-19", "ns", "pod", "c", T::ContainerStarted, milliseconds(50)});  // not its worst
  s.add({"uid-3", "ns", "pod", "c", T::ContainerStarted, seconds(30)});       // now the worst
  EXPECT_EQ(s.count, 22);
  ASSERT_EQ(s.worst.size(), LagSummary::kWorstPods);
  EXPECT_EQ(s.worst[0].uid, "uid-3");
  EXPECT_EQ(s.worst[1].uid, "uid-19");
  EXPECT_EQ(s.worst[4].uid, "uid-16");
  EXPECT_EQ(s.max, seconds(30));
}

TEST(LagSummary, QuantilesInterpolateInsideTheHistogramsBuckets) {
  LagSummary s;
  EXPECT_FALSE(lag_quantile(s.buckets, 0.5));
  for (int i = 0; i < 99; ++i) s.add({"u", "", "", "", T::ContainerDied, milliseconds(300)});
  s.add({"v", "", "", "", T::ContainerDied, seconds(20)});
  auto p50 = lag_quantile(s.buckets, 0.5);
  auto p99 = lag_quantile(s.buckets, 0.99);
  auto p100 = lag_quantile(s.buckets, 1.0);
  ASSERT_TRUE(p50 && p99 && p100);
  EXPECT_GT(*p50, 0.25);
  EXPECT_LE(*p50, 0.5);
  EXPECT_LE(*p99, 0.5);
  EXPECT_GT(*p100, 10.0);
  EXPECT_LE(*p100, 30.0);
}

TEST(MeasureLag, NeverNegative) {
  const TimePoint seen = TimePoint(seconds(1'790'000'000));
  EXPECT_EQ(measure_lag(0, 0, seen).kind, LagMeasure::Kind::kInvalid);
  EXPECT_EQ(measure_lag(nanos(seen + milliseconds(1)), 0, seen).kind, LagMeasure::Kind::kInvalid);
  EXPECT_EQ(measure_lag(nanos(seen - seconds(2)), nanos(seen - seconds(1)), seen).kind,
            LagMeasure::Kind::kInvalid);
  const LagMeasure ok = measure_lag(nanos(seen - seconds(2)), nanos(seen - seconds(3)), seen);
  EXPECT_EQ(ok.kind, LagMeasure::Kind::kValid);
  EXPECT_EQ(ok.lag, seconds(2));
  EXPECT_EQ(measure_lag(nanos(seen), 0, seen).lag, Duration(0)) << "seen the instant it happened";
}

}  // namespace
}  // namespace plegscope
