// Step tests for the generic PLEG, kubelet style: a fake runtime, a fake
// clock, relist() called directly. No threads, no sleeps.
#include "pleg/generic_pleg.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <prometheus/registry.h>

#include "fake_clock.h"
#include "fake_runtime.h"

namespace plegscope {
namespace {

using T = PodLifecycleEventType;
using namespace std::chrono;

class GenericPlegTest : public ::testing::Test {
 protected:
  GenericPlegTest() { make_pleg(1000); }

  void make_pleg(size_t capacity) {
    pleg.reset();
    registry = std::make_shared<prometheus::Registry>();
    metrics = std::make_unique<PlegMetrics>(*registry);
    records.clear();
    pleg = std::make_unique<GenericPleg>(
        runtime, clock, cache, *metrics, GenericPlegOptions{capacity, kGenericRelistTiming},
        [this](const RelistRecord& r) { records.push_back(r); });
  }

  std::vector<PodLifecycleEvent> drain() {
    std::vector<PodLifecycleEvent> out;
    while (auto e = pleg->watch().try_receive()) out.push_back(*e);
    return out;
  }

  static PodLifecycleEvent ev(const std::string& uid, T type, const std::string& cid) {
    PodLifecycleEvent e;
    e.pod_uid = uid;
    e.type = type;
    e.container_id = cid;
    return e;
  }

  double counter(PodLifecycleEventType type) { return metrics->events(type).Value(); }

  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  std::shared_ptr<prometheus::Registry> registry;
  std::unique_ptr<PlegMetrics> metrics;
  std::unique_ptr<GenericPleg> pleg;
  std::vector<RelistRecord> records;
};

TEST_F(GenericPlegTest, FirstRelistReportsRunningAndExitedContainers) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.add_container("c2", "uid-1", cri::CONTAINER_EXITED, "s1");
  runtime.add_container("c3", "uid-1", cri::CONTAINER_CREATED, "s1");
  pleg->relist();
  auto events = drain();
  // Containers first, then sandboxes, each pod's ids in list order.
  std::vector<PodLifecycleEvent> want = {ev("uid-1", T::ContainerStarted, "c1"),
                                         ev("uid-1", T::ContainerDied, "c2"),
                                         ev("uid-1", T::ContainerStarted, "s1")};
  EXPECT_EQ(events, want);
  // c3 (created) produced ContainerChanged: counted, never sent.
  EXPECT_EQ(counter(T::ContainerChanged), 1);
  EXPECT_EQ(counter(T::ContainerStarted), 2);
  ASSERT_TRUE(cache.get("uid-1").has_value());
  EXPECT_EQ(cache.get("uid-1")->containers.size(), 3u);
  EXPECT_EQ(cache.get("uid-1")->name, "pod-uid-1");
  EXPECT_EQ(events[0].container_name, "c-c1");
  EXPECT_EQ(events[0].pod_namespace, "default");
}

TEST_F(GenericPlegTest, DetectsDeathRestartAndRemoval) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  pleg->relist();
  drain();
  pleg->relist();
  EXPECT_TRUE(drain().empty()) << "nothing changed";

  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.add_container("c2", "uid-1", cri::CONTAINER_RUNNING, "s1");
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerDied, "c1"),
                                                      ev("uid-1", T::ContainerStarted, "c2")}));

  runtime.remove("c1");
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerRemoved, "c1")}));

  // A running container that vanishes died first, then was removed.
  runtime.remove("c2");
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerDied, "c2"),
                                                      ev("uid-1", T::ContainerRemoved, "c2")}));
}

// containerd lists containers from a Go map, in a different order each time.
TEST_F(GenericPlegTest, ARuntimeListingInAnotherOrderIsNoChange) {
  runtime.add_sandbox("s1", "uid-1");
  for (const char* id : {"c1", "c2", "c3", "c4"}) runtime.add_container(id, "uid-1", cri::CONTAINER_RUNNING, "s1");
  pleg->relist();
  drain();
  std::reverse(runtime.containers.begin(), runtime.containers.end());
  std::swap(runtime.containers[0], runtime.containers[2]);
  pleg->relist();
  EXPECT_TRUE(drain().empty());
  EXPECT_EQ(records.back().pods_inspected, 0) << "nothing changed, nothing to inspect";
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  std::reverse(runtime.containers.begin(), runtime.containers.end());
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerDied, "c1")}));
}

TEST_F(GenericPlegTest, SandboxTransitionsAreEventsToo) {
  runtime.add_sandbox("s1", "uid-1");
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerStarted, "s1")}));
  runtime.set_sandbox_state("s1", cri::SANDBOX_NOTREADY);
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerDied, "s1")}));
  runtime.remove("s1");
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerRemoved, "s1")}));
  EXPECT_FALSE(cache.get("uid-1").has_value()) << "a pod gone from the runtime leaves the cache";
}

// A pod gone from the lists keeps its name for calls made before,
// but is no longer "listed": a shim still serving its sandbox is a leak.
TEST_F(GenericPlegTest, APodGoneFromTheListsIsFoundButNotListed) {
  runtime.add_sandbox("s1", "uid-1");
  pleg->relist();
  auto found = pleg->find_pod({CallTarget::Kind::kSandbox, "s1"});
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->listed);
  runtime.remove("s1");
  pleg->relist();
  found = pleg->find_pod({CallTarget::Kind::kSandbox, "s1"});
  ASSERT_TRUE(found);
  EXPECT_EQ(found->uid, "uid-1");
  EXPECT_FALSE(found->listed);
}

TEST_F(GenericPlegTest, FailedInspectionLosesNoEvent) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.add_sandbox("s2", "uid-2");
  pleg->relist();
  drain();

  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.fail_container_status["c1"] = GrpcCode::kDeadlineExceeded;
  pleg->relist();
  EXPECT_TRUE(drain().empty()) << "events of a pod that failed inspection are held back";
  EXPECT_EQ(pleg->pods_to_reinspect(), 1u);
  EXPECT_EQ(metrics->pods_to_reinspect.Value(), 1);
  EXPECT_EQ(records.back().inspection_failures, 1);

  pleg->relist();  // still failing: found again, still held
  EXPECT_TRUE(drain().empty());
  EXPECT_EQ(records.back().inspection_failures, 1)
      << "inspected once for its events and the re-inspection it is owed, as the kubelet's reconcilePodRecord";
  EXPECT_EQ(pleg->pods_to_reinspect(), 1u);

  runtime.fail_container_status.clear();
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{ev("uid-1", T::ContainerDied, "c1")}));
  EXPECT_EQ(pleg->pods_to_reinspect(), 0u);
  EXPECT_EQ(cache.get("uid-1")->containers.at(0).state(), cri::CONTAINER_EXITED);
  pleg->relist();
  EXPECT_TRUE(drain().empty()) << "delivered exactly once";
}

TEST_F(GenericPlegTest, ReinspectsPodsWithoutNewEvents) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.fail_container_status["c1"] = GrpcCode::kUnavailable;
  pleg->relist();
  EXPECT_EQ(pleg->pods_to_reinspect(), 1u);
  EXPECT_FALSE(cache.get("uid-1").has_value());
  runtime.fail_container_status.clear();
  pleg->relist();
  EXPECT_EQ(pleg->pods_to_reinspect(), 0u);
  EXPECT_TRUE(cache.get("uid-1").has_value());
}

TEST_F(GenericPlegTest, InspectionFollowsGetPodStatusCallPattern) {
  pleg->set_model(kubelet_model_of(1, 35));  // pleg_kubelet_model_test.cpp has every release
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.add_container("c2", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.add_sandbox("s2", "uid-2");
  pleg->relist();
  // 1 relist list each + per pod: ListPodSandbox, PodSandboxStatus x sandboxes,
  // ListContainers, ContainerStatus x containers.
  EXPECT_EQ(runtime.calls[op::kListPodSandbox], 1 + 2);
  EXPECT_EQ(runtime.calls[op::kListContainers], 1 + 2);
  EXPECT_EQ(runtime.calls[op::kPodSandboxStatus], 2);
  EXPECT_EQ(runtime.calls[op::kContainerStatus], 2);
  EXPECT_EQ(records.back().status_calls, 8);
}

TEST_F(GenericPlegTest, HealthFollowsTheKubeletsRule) {
  HealthStatus h = pleg->healthy();
  EXPECT_FALSE(h.healthy);
  EXPECT_EQ(h.message, "pleg has yet to be successful");

  pleg->relist();
  EXPECT_TRUE(pleg->healthy().healthy);
  clock.step(minutes(3));
  EXPECT_TRUE(pleg->healthy().healthy) << "exactly at the threshold is still healthy";
  clock.step(milliseconds(5200));
  h = pleg->healthy();
  EXPECT_FALSE(h.healthy);
  EXPECT_EQ(h.message, "pleg was last seen active 3m5.2s ago; threshold is 3m0s");

  pleg->relist();
  EXPECT_TRUE(pleg->healthy().healthy);
}

TEST_F(GenericPlegTest, FailedListDoesNotAdvanceRelistTime) {
  pleg->relist();
  auto seen = metrics->last_seen.Value();
  clock.step(seconds(10));
  runtime.fail[op::kListContainers] = GrpcCode::kUnavailable;
  pleg->relist();
  EXPECT_EQ(metrics->last_seen.Value(), seen);
  EXPECT_EQ(metrics->relist_errors("UNAVAILABLE").Value(), 1);
  ASSERT_TRUE(records.back().error_code.has_value());
  EXPECT_EQ(*records.back().error_code, GrpcCode::kUnavailable);
  clock.step(minutes(3));
  EXPECT_FALSE(pleg->healthy().healthy);
  runtime.fail.clear();
  pleg->relist();
  EXPECT_GT(metrics->last_seen.Value(), seen);
  EXPECT_TRUE(pleg->healthy().healthy);
}

TEST_F(GenericPlegTest, FullChannelDiscardsAndNeverBlocks) {
  make_pleg(2);
  runtime.add_sandbox("s1", "uid-1");
  for (int i = 0; i < 4; ++i)
    runtime.add_container("c" + std::to_string(i), "uid-1", cri::CONTAINER_RUNNING, "s1");
  pleg->relist();  // 5 events (4 containers + sandbox) into a channel of 2
  EXPECT_EQ(pleg->watch().size(), 2u);
  EXPECT_EQ(metrics->discard_events.Value(), 3);
  EXPECT_EQ(records.back().events_discarded, 3);
  EXPECT_TRUE(pleg->healthy().healthy) << "discards do not stop the relist";
}

TEST_F(GenericPlegTest, RelistMetricsAndRecord) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.add_container("c2", "uid-1", cri::CONTAINER_EXITED, "s1");
  runtime.add_sandbox("s2", "uid-2", cri::SANDBOX_NOTREADY);
  runtime.on_call = [this](const std::string&) { clock.step(milliseconds(10)); };
  pleg->relist();
  EXPECT_EQ(metrics->running_pods.Value(), 1);
  EXPECT_EQ(metrics->running_containers("running").Value(), 1);
  EXPECT_EQ(metrics->running_containers("exited").Value(), 1);
  const RelistRecord& r = records.back();
  EXPECT_EQ(r.pods, 2);
  EXPECT_EQ(r.containers, 2);
  EXPECT_EQ(r.list_time, milliseconds(20));
  EXPECT_EQ(r.duration, r.list_time + r.status_time);
  EXPECT_EQ(r.pods_with_events, 2);
  ASSERT_FALSE(r.top_pods.empty());
  EXPECT_EQ(r.top_pods[0].pod->uid, "uid-1");
  EXPECT_EQ(r.top_pods[0].events, 3);
  EXPECT_EQ(metrics->relist_interval.Collect().histogram.sample_count, 0u)
      << "no interval before a second relist";
  clock.step(seconds(1));
  pleg->relist();
  EXPECT_EQ(metrics->relist_interval.Collect().histogram.sample_count, 1u);
  EXPECT_EQ(metrics->relist_duration.Collect().histogram.sample_count, 2u);
}

// The runner on a fake clock: a relist counter the observer bumps, and the
// clock's count of waits begun, so the test knows when the runner is blocked.
class GenericPlegRunnerTest : public ::testing::Test {
 protected:
  void make(RelistTiming timing) {
    pleg = std::make_unique<GenericPleg>(runtime, clock, cache, *metrics,
                                         GenericPlegOptions{10, timing},
                                         [this](const RelistRecord&) {
                                           std::lock_guard<std::mutex> lock(mu);
                                           relists++;
                                           cv.notify_all();
                                         });
  }
  // Bounded (real time) only so a regression fails instead of hanging.
  bool wait_for_relists(int n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, seconds(60), [&] { return relists >= n; });
  }
  int relist_count() {
    std::lock_guard<std::mutex> lock(mu);
    return relists;
  }

  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  std::unique_ptr<PlegMetrics> metrics = std::make_unique<PlegMetrics>(registry);
  std::unique_ptr<GenericPleg> pleg;
  std::mutex mu;
  std::condition_variable cv;
  int relists = 0;
};

TEST_F(GenericPlegRunnerTest, StopInterruptsTheWaitBetweenRelists) {
  make(RelistTiming{hours(1), hours(2)});
  pleg->start();
  ASSERT_TRUE(wait_for_relists(1));
  ASSERT_TRUE(clock.wait_for_waits(1)) << "the runner never waited for its period";
  // The fake clock never moves: only an interruptible wait lets stop() return.
  std::promise<void> stopped;
  std::thread stopper([&] {
    pleg->stop();
    stopped.set_value();
  });
  auto future = stopped.get_future();
  const bool interrupted = future.wait_for(seconds(60)) == std::future_status::ready;
  if (!interrupted) clock.step(hours(1));  // release a runner that ignored stop(): fail, never hang
  stopper.join();
  EXPECT_TRUE(interrupted) << "stop() waited for the period to end";
  EXPECT_EQ(relist_count(), 1) << "stopping relisted or the runner did not wait for the clock";
  EXPECT_EQ(pleg->timing().period, hours(1));
}

TEST_F(GenericPlegRunnerTest, RelistsOncePerPeriodOfTheInjectedClock) {
  make(RelistTiming{seconds(1), minutes(3)});
  pleg->start();
  ASSERT_TRUE(wait_for_relists(1));
  ASSERT_TRUE(clock.wait_for_waits(1));
  clock.step(milliseconds(999));
  // The runner woke, found its period not over, and waits again.
  ASSERT_TRUE(clock.wait_for_waits(2));
  EXPECT_EQ(relist_count(), 1) << "relisted before its period on the injected clock";
  clock.step(milliseconds(1));
  EXPECT_TRUE(wait_for_relists(2));
  pleg->stop();
  EXPECT_EQ(relist_count(), 2);
}

// The evented fall-back shortens the period while the runner waits out a
// 300 s one: the new period must take effect at once.
TEST_F(GenericPlegRunnerTest, AShorterPeriodTakesEffectWhileWaiting) {
  make(RelistTiming{hours(1), hours(2)});
  pleg->start();
  ASSERT_TRUE(wait_for_relists(1));
  ASSERT_TRUE(clock.wait_for_waits(1));
  pleg->update(RelistTiming{milliseconds(1), minutes(3)});
  ASSERT_TRUE(clock.wait_for_waits(2)) << "update() did not wake the runner";
  clock.step(milliseconds(1));  // one new period, far from the old one-hour one
  EXPECT_TRUE(wait_for_relists(2)) << "relists kept waiting for the old one-hour period";
  pleg->stop();
}

}  // namespace
}  // namespace plegscope
