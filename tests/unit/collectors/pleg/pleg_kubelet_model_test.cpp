// The kubelet's PLEG release by release, as the agent copies it: which CRI
// calls a relist and a pod's inspection make (counted), the on-demand pod
// relists of 1.36+ and how a hung one blocks the global relist, the
// re-inspection of a pod whose inspection failed, and evented PLEG as a
// hint from 1.37. The releases' behaviour is read from their source
// (pkg/kubelet/pleg/generic.go, evented.go, kuberuntime_manager.go).
#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <condition_variable>
#include <mutex>

#include "fake_clock.h"
#include "fake_runtime.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"

namespace plegscope {
namespace {

using T = PodLifecycleEventType;
using namespace std::chrono;

class KubeletModelTest : public ::testing::TestWithParam<int> {
 protected:
  KubeletModelTest() {
    pleg = std::make_unique<GenericPleg>(runtime, clock, cache, metrics,
                                         GenericPlegOptions{1000, kGenericRelistTiming, seconds(10),
                                                            kubelet_model_of(1, GetParam())},
                                         [this](const RelistRecord& r) { records.push_back(r); });
    // uid-1: a sandbox and two containers; uid-2: a sandbox alone.
    runtime.add_sandbox("s1", "uid-1");
    runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
    runtime.add_container("c2", "uid-1", cri::CONTAINER_RUNNING, "s1");
    runtime.add_sandbox("s2", "uid-2");
  }

  std::vector<PodLifecycleEvent> drain() {
    std::vector<PodLifecycleEvent> out;
    while (auto e = pleg->watch().try_receive()) out.push_back(*e);
    return out;
  }
  std::map<std::string, int> calls_since(const std::map<std::string, int>& before) {
    std::map<std::string, int> out;
    for (const auto& [op, n] : runtime.calls)
      if (n - (before.count(op) ? before.at(op) : 0) > 0) out[op] = n - (before.count(op) ? before.at(op) : 0);
    return out;
  }
  bool lists() const { return GetParam() <= 35; }

  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics{registry};
  std::unique_ptr<GenericPleg> pleg;
  std::vector<RelistRecord> records;
};

INSTANTIATE_TEST_SUITE_P(Releases, KubeletModelTest, ::testing::Values(34, 35, 36, 37),
                         [](const auto& info) { return "kubelet_1_" + std::to_string(info.param); });

// The first relist inspects both pods. Up to 1.35 GetPodStatus lists each
// pod again (a filtered ListPodSandbox and ListContainers per pod); from 1.36
// it takes the ids from the relist: the status calls only.
TEST_P(KubeletModelTest, CallsOfTheFirstRelist) {
  pleg->relist();
  const int per_pod_lists = lists() ? 2 : 0;
  EXPECT_EQ(runtime.calls[op::kListPodSandbox], 1 + per_pod_lists);
  EXPECT_EQ(runtime.calls[op::kListContainers], 1 + per_pod_lists);
  EXPECT_EQ(runtime.calls[op::kPodSandboxStatus], 2);
  EXPECT_EQ(runtime.calls[op::kContainerStatus], 2);
  EXPECT_EQ(records.back().status_calls, 4 + 2 * per_pod_lists);
  EXPECT_EQ(pleg->queued_pod_relists(), 0u) << "the node as it was when the agent came: no kubelet sync acted";
}

// A container dies. The relist inspects its pod (up to 1.35 with the
// pod's own lists, from 1.36 with the status calls only). A death alone
// asks no relist of the pod: the kubelet's sync after it either starts the
// container again or fails in back-off, and only a sync that acted and
// succeeded is followed by the kubelet's on-demand relist.
TEST_P(KubeletModelTest, CallsAfterAContainerDies) {
  pleg->relist();
  drain();
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  auto before = runtime.calls;
  pleg->relist();
  std::map<std::string, int> want = {{op::kListPodSandbox, 1 + (lists() ? 1 : 0)},
                                     {op::kListContainers, 1 + (lists() ? 1 : 0)},
                                     {op::kPodSandboxStatus, 1},
                                     {op::kContainerStatus, 2}};
  EXPECT_EQ(calls_since(before), want);
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{{"uid-1", T::ContainerDied, "c1"}}));
  EXPECT_EQ(pleg->queued_pod_relists(), 0u) << "a death alone is no sync that acted";
}

// The kubelet restarts it: a new container of the pod runs. From 1.36 the
// agent then relists that pod on demand, as the kubelet does after the sync
// that started it: a ListPodSandbox and a ListContainers filtered by its
// uid, and no status call when nothing changed since.
TEST_P(KubeletModelTest, CallsAfterAContainerIsRestarted) {
  pleg->relist();
  drain();
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.add_container("c3", "uid-1", cri::CONTAINER_RUNNING, "s1");
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{{"uid-1", T::ContainerDied, "c1"},
                                                     {"uid-1", T::ContainerStarted, "c3"}}));

  const bool on_demand = GetParam() >= 36;
  ASSERT_EQ(pleg->queued_pod_relists(), on_demand ? 1u : 0u);
  if (!on_demand) return;
  auto before = runtime.calls;
  pleg->relist_pod("uid-1");
  EXPECT_EQ(calls_since(before), (std::map<std::string, int>{{op::kListPodSandbox, 1}, {op::kListContainers, 1}}));
  for (const auto& e : drain())
    ADD_FAILURE() << "the pod did not change since the relist, yet " << event_type_name(e.type) << " "
                  << e.container_id;
  EXPECT_EQ(metrics.pod_relist_duration().Collect().histogram.sample_count, 1u);

  // A change the pod relist finds first is its to deliver, inspected as in
  // a relist (status calls only), and not found again by the next relist.
  // A start it finds asks no further relist: it is the relist that follows
  // the sync.
  runtime.set_state("c2", cri::CONTAINER_EXITED);
  runtime.add_container("c4", "uid-1", cri::CONTAINER_RUNNING, "s1");
  before = runtime.calls;
  pleg->relist_pod("uid-1");
  EXPECT_EQ(calls_since(before), (std::map<std::string, int>{{op::kListPodSandbox, 1},
                                                             {op::kListContainers, 1},
                                                             {op::kPodSandboxStatus, 1},
                                                             {op::kContainerStatus, 4}}));
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{{"uid-1", T::ContainerDied, "c2"},
                                                     {"uid-1", T::ContainerStarted, "c4"}}));
  EXPECT_EQ(pleg->queued_pod_relists(), 1u) << "the global relist's request only (tests serve none)";
  pleg->relist();
  EXPECT_TRUE(drain().empty());
}

// A fast crash loop: the instance the kubelet's sync started is dead by
// the next relist (ContainerDied only), and the sync that started it was
// still followed by the kubelet's relist of the pod.
TEST_P(KubeletModelTest, AnInstanceAlreadyDeadIsStillASyncThatActed) {
  pleg->relist();
  drain();
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  pleg->relist();
  drain();
  runtime.add_container("c3", "uid-1", cri::CONTAINER_EXITED, "s1");
  pleg->relist();
  EXPECT_EQ(drain(), (std::vector<PodLifecycleEvent>{{"uid-1", T::ContainerDied, "c3"}}));
  EXPECT_EQ(pleg->queued_pod_relists(), GetParam() >= 36 ? 1u : 0u);
}

// A new pod: the kubelet's sync created its sandbox and started its
// container, and relists it (1.36+); a pod torn down goes through
// SyncTerminatingPod, which asks none.
TEST_P(KubeletModelTest, ANewPodIsRelistedAndARemovedOneIsNot) {
  pleg->relist();
  drain();
  runtime.add_sandbox("s3", "uid-3");
  runtime.add_container("c5", "uid-3", cri::CONTAINER_RUNNING, "s3");
  pleg->relist();
  const size_t queued = pleg->queued_pod_relists();
  EXPECT_EQ(queued, GetParam() >= 36 ? 1u : 0u);
  drain();

  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.set_state("c2", cri::CONTAINER_EXITED);
  runtime.set_sandbox_state("s1", cri::SANDBOX_NOTREADY);
  pleg->relist();
  EXPECT_FALSE(drain().empty());
  EXPECT_EQ(pleg->queued_pod_relists(), queued) << "a pod stopped: no sync that started anything";
}

// Every release re-inspects a pod whose inspection failed at every relist
// until one succeeds, once per relist (its events, held back, are found
// again; the kubelet inspects the pod once for both).
TEST_P(KubeletModelTest, ReinspectionOfAFailedPod) {
  runtime.fail_container_status["c1"] = GrpcCode::kDeadlineExceeded;
  pleg->relist();
  drain();
  EXPECT_EQ(pleg->pods_to_reinspect(), 1u);
  for (int i = 0; i < 3; ++i) {
    auto before = runtime.calls;
    pleg->relist();
    EXPECT_EQ(pleg->pods_to_reinspect(), 1u) << "still failing: owed again";
    EXPECT_EQ(records.back().inspection_failures, 1) << "inspected once per relist";
    EXPECT_EQ(calls_since(before)[op::kListPodSandbox], 1 + (lists() ? 1 : 0));
    EXPECT_TRUE(drain().empty()) << "its events are held back";
  }
  runtime.fail_container_status.clear();
  auto before = runtime.calls;
  pleg->relist();
  EXPECT_EQ(pleg->pods_to_reinspect(), 0u);
  EXPECT_EQ(calls_since(before), (std::map<std::string, int>{{op::kListPodSandbox, 1 + (lists() ? 1 : 0)},
                                                             {op::kListContainers, 1 + (lists() ? 1 : 0)},
                                                             {op::kPodSandboxStatus, 1},
                                                             {op::kContainerStatus, 2}}));
  EXPECT_EQ(drain().size(), 3u) << "the held-back events, once: s1, c1 and c2 started";
  EXPECT_TRUE(cache.get("uid-1").has_value());
  pleg->relist();
  EXPECT_TRUE(drain().empty());
}

// A re-inspection that finds no change (the pod is back in the state of its
// record): from 1.36 it still sends a PodSync (generic.go reconcilePodRecord),
// up to 1.35 nothing.
TEST_P(KubeletModelTest, AReinspectionWithoutChangeSendsAPodSyncFrom136) {
  pleg->relist();
  drain();
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.fail_container_status["c1"] = GrpcCode::kDeadlineExceeded;
  pleg->relist();
  ASSERT_EQ(pleg->pods_to_reinspect(), 1u);
  runtime.set_state("c1", cri::CONTAINER_RUNNING);
  runtime.fail_container_status.clear();
  pleg->relist();
  EXPECT_EQ(pleg->pods_to_reinspect(), 0u);
  EXPECT_EQ(records.back().pods_inspected, 1);
  const auto events = drain();
  if (GetParam() >= 36) {
    EXPECT_EQ(events, (std::vector<PodLifecycleEvent>{{"uid-1", T::PodSync, ""}}));
  } else {
    EXPECT_TRUE(events.empty());
  }
}

// A pod owed a re-inspection that is gone from the runtime only leaves the
// cache: no call for it.
TEST_P(KubeletModelTest, AGonePodOwedAnInspectionMakesNoCall) {
  pleg->relist();
  runtime.fail_container_status["c1"] = GrpcCode::kUnavailable;
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  pleg->relist();
  ASSERT_EQ(pleg->pods_to_reinspect(), 1u);
  runtime.remove("c1");
  runtime.remove("c2");
  runtime.remove("s1");
  auto before = runtime.calls;
  pleg->relist();
  EXPECT_EQ(calls_since(before), (std::map<std::string, int>{{op::kListPodSandbox, 1}, {op::kListContainers, 1}}));
  EXPECT_EQ(pleg->pods_to_reinspect(), 0u);
  EXPECT_FALSE(cache.get("uid-1").has_value());
}

// generic.go 1.36: relistPod's GetPod answers ErrPodNotFound for a pod the
// runtime no longer lists; left to the next relist.
TEST(PodRelist, APodNotFoundIsLeftToTheNextRelist) {
  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  GenericPleg pleg(runtime, clock, cache, metrics, GenericPlegOptions{});
  pleg.relist_pod("uid-gone");
  EXPECT_EQ(runtime.calls[op::kListPodSandbox], 1);
  EXPECT_EQ(runtime.calls[op::kListContainers], 1);
  EXPECT_EQ(runtime.calls[op::kPodSandboxStatus], 0);
  EXPECT_FALSE(pleg.progress()) << "nothing in progress once it returned";
}

// The runner on a fake clock, copying 1.36+: the on-demand pod relist runs
// on the relist's own thread and lock, so while its ListPodSandbox hangs
// the global relist cannot start and the PLEG turns unhealthy, as the
// kubelet's does; the relist in progress names the pod.
TEST(PodRelist, AHungPodRelistBlocksTheGlobalRelistWithThePodNamed) {
  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  std::mutex mu;
  std::condition_variable cv;
  int relists = 0;
  // The first ListPodSandbox after two relists (the pod relist's) hangs
  // until released.
  bool armed = true, hanging = false, released = false;
  runtime.on_call = [&](const std::string& op) {
    std::unique_lock<std::mutex> lock(mu);
    if (op != op::kListPodSandbox || relists < 2 || !armed) return;
    armed = false;
    hanging = true;
    cv.notify_all();
    cv.wait(lock, [&] { return released; });
    hanging = false;
  };
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  GenericPleg pleg(runtime, clock, cache, metrics, GenericPlegOptions{}, [&](const RelistRecord&) {
    std::lock_guard<std::mutex> lock(mu);
    relists++;
    cv.notify_all();
  });
  auto wait = [&](auto done) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, seconds(60), done);  // real time bounds a regression only
  };
  pleg.start();
  ASSERT_TRUE(wait([&] { return relists >= 1; }));
  ASSERT_TRUE(clock.wait_for_waits(1));

  // The container is restarted; the next relist requests a relist of its
  // pod, whose filtered ListPodSandbox then hangs.
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.add_container("c2", "uid-1", cri::CONTAINER_RUNNING, "s1");
  clock.step(seconds(1));
  ASSERT_TRUE(wait([&] { return relists >= 2; }));
  // The request was queued during relist 2; the runner serves it at once.
  ASSERT_TRUE(wait([&] { return hanging; }));
  auto progress = pleg.progress();
  ASSERT_TRUE(progress);
  ASSERT_TRUE(progress->pod);
  EXPECT_EQ(progress->pod->uid, "uid-1");
  EXPECT_EQ(progress->pod->name, "pod-uid-1");
  EXPECT_EQ(progress->lists_done, 0);
  auto named = pleg.find_pod({CallTarget::Kind::kPodUid, "uid-1"});
  ASSERT_TRUE(named) << "the hung filtered list names its pod";
  EXPECT_EQ(named->name, "pod-uid-1");

  clock.step(minutes(3) + seconds(2));
  EXPECT_FALSE(pleg.healthy().healthy) << "the global relist is blocked behind the pod's";
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(relists, 2) << "no global relist while the pod relist hangs";
  }
  EXPECT_GE(pleg.progress()->duration, minutes(3));

  {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
  }
  cv.notify_all();
  ASSERT_TRUE(wait([&] { return relists >= 3; })) << "the overdue global relist runs once the pod's returns";
  EXPECT_TRUE(pleg.healthy().healthy);
  EXPECT_EQ(metrics.pod_relist_duration().Collect().histogram.sample_count, 1u);
  pleg.stop();
}

// generic.go's worker loop: a request made before the start of the last
// successful relist was served by it and is skipped.
TEST(PodRelist, ARequestOlderThanTheLastRelistIsSkipped) {
  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  std::mutex mu;
  std::condition_variable cv;
  int relists = 0;
  GenericPleg pleg(runtime, clock, cache, metrics, GenericPlegOptions{}, [&](const RelistRecord&) {
    std::lock_guard<std::mutex> lock(mu);
    relists++;
    cv.notify_all();
  });
  // Queued before the first relist starts: the runner's first relist (due
  // at once) goes first and covers it.
  clock.step(seconds(1));
  pleg.request_relist("uid-1");
  clock.step(seconds(1));
  pleg.start();
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, seconds(60), [&] { return relists >= 1; }));
  }
  ASSERT_TRUE(clock.wait_for_waits(1));
  EXPECT_EQ(pleg.queued_pod_relists(), 0u);
  EXPECT_EQ(runtime.calls[op::kListPodSandbox], 1) << "the global relist's only";
  pleg.stop();
}

TEST(PodRelist, BeforeTheirReleaseRequestsAreNoOps) {
  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  GenericPleg pleg(runtime, clock, cache, metrics,
                   GenericPlegOptions{1000, kGenericRelistTiming, seconds(10), kubelet_model_of(1, 35)});
  pleg.request_relist("uid-1");
  EXPECT_EQ(pleg.queued_pod_relists(), 0u);
  pleg.set_model(kubelet_model_of(1, 36));
  pleg.request_relist("uid-1");
  EXPECT_EQ(pleg.queued_pod_relists(), 1u);
  for (int i = 0; i < 300; ++i) pleg.request_relist("uid-x");
  EXPECT_EQ(pleg.queued_pod_relists(), kPodRelistQueue) << "the kubelet's channel holds 200";
}

// evented.go 1.37: the stream is a hint. A stopped container requests a
// relist of its pod; nothing goes to the cache or the event channel, the
// generic relist keeps its 1 s, and there is no evented health check.
TEST(EventedHint, AStoppedContainerRequestsItsPodsRelist) {
  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  GenericPleg generic(runtime, clock, cache, metrics, GenericPlegOptions{1});
  std::vector<std::string> requested;
  EventedPlegOptions options;
  options.hint = true;
  options.request_relist = [&](const std::string& uid) { requested.push_back(uid); };
  EventedPleg evented(runtime, clock, cache, generic, metrics, registry, options);

  auto event = [](cri::ContainerEventType type) {
    cri::ContainerEventResponse e;
    e.set_container_id("c1");
    e.set_container_event_type(type);
    e.set_created_at(1);
    e.mutable_pod_sandbox_status()->set_id("s1");
    e.mutable_pod_sandbox_status()->mutable_metadata()->set_uid("uid-1");
    return e;
  };
  evented.process(event(cri::CONTAINER_STARTED_EVENT));
  evented.process(event(cri::CONTAINER_CREATED_EVENT));
  EXPECT_TRUE(requested.empty());
  evented.process(event(cri::CONTAINER_STOPPED_EVENT));
  EXPECT_EQ(requested, (std::vector<std::string>{"uid-1"}));
  EXPECT_FALSE(generic.watch().try_receive()) << "events are the generic relist's";
  EXPECT_FALSE(cache.get("uid-1"));

  PodLifecycleEvent filler;
  ASSERT_TRUE(generic.watch().try_send(filler));  // the channel (capacity 1) is full
  EXPECT_TRUE(evented.healthy().healthy) << "1.37 has no evented health check";
  EXPECT_FALSE(evented.drives_pleg());
  EXPECT_EQ(generic.timing().period, kGenericRelistTiming.period);
}

TEST(EventedHint, SwitchingShapesFollowsTheRelease) {
  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  PodStatusCache cache;
  prometheus::Registry registry;
  PlegMetrics metrics(registry);
  GenericPleg generic(runtime, clock, cache, metrics, GenericPlegOptions{});
  EventedPlegOptions options;
  options.hint = true;
  // The stream stays open (its call blocks) until the test ends.
  std::mutex mu;
  std::condition_variable cv;
  bool open = true;
  runtime.on_call = [&](const std::string& op) {
    std::unique_lock<std::mutex> lock(mu);
    if (op == op::kGetContainerEvents) cv.wait(lock, [&] { return !open; });
  };
  EventedPleg evented(runtime, clock, cache, generic, metrics, registry, options);
  evented.start();
  EXPECT_EQ(generic.timing().period, kGenericRelistTiming.period) << "a hint never slows the relist";
  evented.set_hint(false);  // the kubelet read as 1.36 with the gate
  EXPECT_EQ(generic.timing().period, kEventedRelistTiming.period);
  EXPECT_TRUE(evented.drives_pleg());
  evented.set_hint(true);
  EXPECT_EQ(generic.timing().period, kGenericRelistTiming.period);
  {
    std::lock_guard<std::mutex> lock(mu);
    open = false;
  }
  cv.notify_all();
  evented.stop();
}

}  // namespace
}  // namespace plegscope
