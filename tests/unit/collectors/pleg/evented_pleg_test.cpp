// The evented PLEG driven by scripted event streams and a recording generic
// PLEG: no gRPC, no threads, no sleeps.
#include "pleg/evented_pleg.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <deque>

#include "fake_clock.h"
#include "fake_runtime.h"

namespace plegscope {
namespace {

using T = PodLifecycleEventType;
using namespace std::chrono;

struct ScriptedStream {
  std::vector<cri::ContainerEventResponse> events;
  CallStatus end;
};

class StreamingRuntime : public testing::FakeRuntime {
 public:
  std::deque<ScriptedStream> streams;
  int attempts = 0;
  CallStatus watch_container_events(const ContainerEventHandler& handler) override {
    attempts++;
    if (streams.empty()) return {GrpcCode::kUnavailable, "connection refused"};
    ScriptedStream s = streams.front();
    streams.pop_front();
    for (const auto& e : s.events)
      if (!handler(e)) return CallStatus::Ok();
    return s.end;
  }
};

// Records what the evented PLEG asks of the generic one.
class RecordingGeneric : public PodLifecycleEventGenerator {
 public:
  RecordingGeneric() : channel(3) {}
  void start() override {}
  void stop() override {}
  void update(RelistTiming t) override { timings.push_back(t); }
  EventChannel& watch() override { return channel; }
  HealthStatus healthy() const override { return {true, ""}; }
  void relist() override { relists++; }
  EventChannel channel;
  std::vector<RelistTiming> timings;
  int relists = 0;
};

cri::ContainerEventResponse event(cri::ContainerEventType type, const std::string& cid,
                                  const std::string& uid, int64_t at_ns,
                                  cri::ContainerState state = cri::CONTAINER_RUNNING) {
  cri::ContainerEventResponse e;
  e.set_container_id(cid);
  e.set_container_event_type(type);
  e.set_created_at(at_ns);
  auto* sandbox = e.mutable_pod_sandbox_status();
  sandbox->set_id("sandbox-" + uid);
  sandbox->mutable_metadata()->set_uid(uid);
  sandbox->mutable_metadata()->set_name("pod-" + uid);
  sandbox->mutable_metadata()->set_namespace_("ns");
  auto* c = e.add_containers_statuses();
  c->set_id(cid);
  c->set_state(state);
  c->mutable_metadata()->set_name("app");
  return e;
}

class EventedPlegTest : public ::testing::Test {
 protected:
  EventedPlegTest() : metrics(registry) {}
  std::unique_ptr<EventedPleg> make(bool fall_back_on_unimplemented = true) {
    return std::make_unique<EventedPleg>(
        runtime, clock, cache, generic, metrics, registry,
        EventedPlegOptions{5, fall_back_on_unimplemented, kGenericRelistTiming, &directory});
  }
  std::vector<std::pair<T, std::string>> drain() {
    std::vector<std::pair<T, std::string>> out;
    while (auto e = generic.channel.try_receive()) out.emplace_back(e->type, e->container_id);
    return out;
  }
  double gauge(const std::string& name) {
    for (const auto& f : registry.Collect())
      if (f.name == name) return f.metric.at(0).gauge.value + f.metric.at(0).counter.value;
    return -1;
  }

  StreamingRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  RecordingGeneric generic;
  prometheus::Registry registry;
  PlegMetrics metrics;
  PodDirectory directory;
};

TEST_F(EventedPlegTest, TurnsRuntimeEventsIntoLifecycleEvents) {
  auto pleg = make();
  pleg->process(event(cri::CONTAINER_CREATED_EVENT, "c1", "u1", 100, cri::CONTAINER_CREATED));
  EXPECT_TRUE(drain().empty()) << "CREATED updates the cache only";
  ASSERT_TRUE(cache.get("u1").has_value());
  EXPECT_EQ(cache.get("u1")->containers.at(0).state(), cri::CONTAINER_CREATED);

  pleg->process(event(cri::CONTAINER_STARTED_EVENT, "c1", "u1", 200));
  pleg->process(event(cri::CONTAINER_STOPPED_EVENT, "c1", "u1", 300, cri::CONTAINER_EXITED));
  EXPECT_EQ(drain(), (std::vector<std::pair<T, std::string>>{{T::ContainerStarted, "c1"},
                                                              {T::ContainerDied, "c1"}}));
  EXPECT_EQ(cache.get("u1")->containers.at(0).state(), cri::CONTAINER_EXITED);

  pleg->process(event(cri::CONTAINER_DELETED_EVENT, "c1", "u1", 400, cri::CONTAINER_EXITED));
  EXPECT_EQ(drain(), (std::vector<std::pair<T, std::string>>{{T::ContainerDied, "c1"},
                                                              {T::ContainerRemoved, "c1"}}));
  EXPECT_EQ(metrics.events(T::ContainerDied).Value(), 2);
}

// A pod created between two generic relists (300 s apart in
// evented mode) is named from its events; its sandbox deleted, it is no
// longer listed.
TEST_F(EventedPlegTest, EventsTellTheDirectoryWhichPodsAreListed) {
  auto pleg = make();
  pleg->process(event(cri::CONTAINER_STARTED_EVENT, "c1", "u1", 100));
  auto by_sandbox = directory.find({CallTarget::Kind::kSandbox, "sandbox-u1"});
  ASSERT_TRUE(by_sandbox);
  EXPECT_EQ(by_sandbox->name, "pod-u1");
  EXPECT_EQ(by_sandbox->namespace_, "ns");
  EXPECT_TRUE(by_sandbox->listed);
  auto by_container = directory.find({CallTarget::Kind::kContainer, "c1"});
  ASSERT_TRUE(by_container);
  EXPECT_EQ(by_container->container_name, "app");
  EXPECT_EQ(by_container->sandbox_id, "sandbox-u1");

  pleg->process(event(cri::CONTAINER_DELETED_EVENT, "sandbox-u1", "u1", 300, cri::CONTAINER_EXITED));
  ASSERT_TRUE(directory.find({CallTarget::Kind::kSandbox, "sandbox-u1"}));
  EXPECT_FALSE(directory.find({CallTarget::Kind::kSandbox, "sandbox-u1"})->listed);
}

TEST_F(EventedPlegTest, AnObservationOlderThanTheCacheIsIgnored) {
  auto pleg = make();
  pleg->process(event(cri::CONTAINER_STOPPED_EVENT, "c1", "u1", 500, cri::CONTAINER_EXITED));
  drain();
  pleg->process(event(cri::CONTAINER_STARTED_EVENT, "c1", "u1", 400));
  EXPECT_TRUE(drain().empty());
  EXPECT_EQ(cache.get("u1")->containers.at(0).state(), cri::CONTAINER_EXITED);
}

TEST_F(EventedPlegTest, SandboxDeletionRemovesThePodFromTheCache) {
  auto pleg = make();
  pleg->process(event(cri::CONTAINER_STARTED_EVENT, "sandbox-u1", "u1", 100));
  ASSERT_TRUE(cache.get("u1").has_value());
  pleg->process(event(cri::CONTAINER_DELETED_EVENT, "sandbox-u1", "u1", 200));
  EXPECT_FALSE(cache.get("u1").has_value());
}

TEST_F(EventedPlegTest, EventsForUnknownPodsAndWithoutSandboxStatus) {
  auto pleg = make();
  pleg->process(event(cri::CONTAINER_STARTED_EVENT, "c9", "never-listed", 100));
  EXPECT_EQ(drain().size(), 1u) << "a pod the relist never saw is still a pod";
  cri::ContainerEventResponse bare;
  bare.set_container_id("c0");
  bare.set_container_event_type(cri::CONTAINER_STARTED_EVENT);
  pleg->process(bare);
  EXPECT_TRUE(drain().empty()) << "no sandbox status: ignored, as the kubelet does";
}

TEST_F(EventedPlegTest, FullChannelDiscardsAndMakesItUnhealthy) {
  auto pleg = make();
  for (int i = 0; i < 5; ++i)
    pleg->process(event(cri::CONTAINER_STARTED_EVENT, "c" + std::to_string(i),
                        "u" + std::to_string(i), 100));
  EXPECT_EQ(metrics.discard_events.Value(), 2);
  HealthStatus h = pleg->healthy();
  EXPECT_FALSE(h.healthy);
  EXPECT_EQ(h.message, "EventedPLEG: pleg event channel capacity is full with 3 events");
}

TEST_F(EventedPlegTest, AutoFallsBackAtOnceOnUnimplemented) {
  runtime.streams.push_back({{}, {GrpcCode::kUnimplemented, "unknown method GetContainerEvents"}});
  auto pleg = make(/*fall_back_on_unimplemented=*/true);
  pleg->watch_events();
  EXPECT_EQ(runtime.attempts, 1);
  EXPECT_FALSE(pleg->active());
  EXPECT_NE(pleg->fallback_reason().find("UNIMPLEMENTED"), std::string::npos);
  ASSERT_EQ(generic.timings.size(), 1u);
  EXPECT_EQ(generic.timings.back().period, seconds(1)) << "generic back to 1 s / 3 min";
  EXPECT_EQ(generic.timings.back().threshold, minutes(3));
  EXPECT_EQ(gauge("pleg_evented_mode"), 0);
  EXPECT_EQ(gauge("pleg_evented_connection_errors_total"), 1);
}

TEST_F(EventedPlegTest, BrokenStreamIsRetriedWithARelistThenFallsBackAfterFive) {
  runtime.streams.push_back(
      {{event(cri::CONTAINER_STARTED_EVENT, "c1", "u1", 100),
        event(cri::CONTAINER_STOPPED_EVENT, "c1", "u1", 200, cri::CONTAINER_EXITED)},
       {GrpcCode::kUnavailable, "stream broke"}});
  runtime.streams.push_back({{event(cri::CONTAINER_STARTED_EVENT, "c2", "u2", 300)},
                             {GrpcCode::kUnavailable, "stream broke again"}});
  auto pleg = make(/*fall_back_on_unimplemented=*/false);
  pleg->watch_events();
  EXPECT_EQ(drain().size(), 3u) << "events from both streams delivered";
  EXPECT_EQ(runtime.attempts, 5);
  EXPECT_EQ(generic.relists, 5) << "each failure forces a catch-up relist";
  EXPECT_EQ(gauge("pleg_evented_connection_success_total"), 2);
  EXPECT_EQ(gauge("pleg_evented_connection_errors_total"), 5);
  EXPECT_FALSE(pleg->active());
  EXPECT_EQ(pleg->fallback_reason(), "GetContainerEvents failed 5 times");
}

TEST_F(EventedPlegTest, StartSlowsTheGenericRelist) {
  runtime.streams.push_back({{}, {GrpcCode::kUnimplemented, "unimplemented"}});
  auto pleg = make();
  pleg->start();
  pleg->stop();
  ASSERT_FALSE(generic.timings.empty());
  EXPECT_EQ(generic.timings.front().period, seconds(300));
  EXPECT_EQ(generic.timings.front().threshold, minutes(10));
}

}  // namespace
}  // namespace plegscope
