// The relist's steps one at a time (relist_steps.h, pod_records.h): the
// records, the events of one pod, the top pods, one pod's cache update.
#include "pleg/relist_steps.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include "fake_clock.h"
#include "fake_runtime.h"

namespace plegscope {
namespace {

using T = PodLifecycleEventType;

class RelistStepsTest : public ::testing::Test {
 protected:
  // The fake runtime's lists as the relist receives them, grouped.
  const PodGrouping& group() {
    std::string error;
    auto sb = runtime.list_all_pod_sandboxes();
    auto cs = runtime.list_all_containers();
    sandboxes = std::move(sb.value);
    containers = std::move(cs.value);
    grouping.group(sandboxes, containers);
    return grouping;
  }

  testing::FakeRuntime runtime;
  testing::FakeClock clock;
  SandboxList sandboxes;
  ContainerList containers;
  PodGrouping grouping;
  PodRecords records;
};

TEST_F(RelistStepsTest, SetCurrentReturnsOnlyPodsThatMayHaveChanged) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  runtime.add_sandbox("s2", "uid-2");
  EXPECT_EQ(records.set_current(group()), (std::vector<std::string>{"uid-1", "uid-2"}));
  records.update("uid-1");
  records.update("uid-2");
  EXPECT_TRUE(records.set_current(group()).empty()) << "a steady node has nothing to compare";
  runtime.remove("s2");
  EXPECT_EQ(records.set_current(group()), (std::vector<std::string>{"uid-2"})) << "gone";
  EXPECT_EQ(records.current_pod("uid-2"), nullptr);
  ASSERT_NE(records.old_pod("uid-2"), nullptr);
  records.update("uid-2");
  EXPECT_EQ(records.old_pod("uid-2"), nullptr) << "a pod gone and delivered is forgotten";
  EXPECT_EQ(records.size(), 1u);
}

TEST_F(RelistStepsTest, EventsForOnePodAreTheKubeletsComparison) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  records.set_current(group());
  records.update("uid-1");
  runtime.set_state("c1", cri::CONTAINER_EXITED);
  runtime.add_container("c2", "uid-1", cri::CONTAINER_CREATED, "s1");
  records.set_current(group());
  auto events = records.events_for("uid-1", clock.now());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, T::ContainerDied);
  EXPECT_EQ(events[0].container_id, "c1");
  EXPECT_EQ(events[0].container_name, "c-c1");
  EXPECT_EQ(events[0].pod_name, "pod-uid-1");
  EXPECT_EQ(events[0].time, clock.now());
  EXPECT_EQ(events[1].type, T::ContainerChanged);
  // Not committed: the same comparison again finds the same events.
  records.set_current(group());
  EXPECT_EQ(records.events_for("uid-1", clock.now()).size(), 2u);
}

TEST_F(RelistStepsTest, ComputeEventsAndTopPods) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_sandbox("s2", "uid-2");
  runtime.add_container("c1", "uid-2", cri::CONTAINER_RUNNING, "s2");
  runtime.add_container("c2", "uid-2", cri::CONTAINER_RUNNING, "s2");
  EventsByPod events = compute_events(records, group(), clock.now());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events["uid-2"].size(), 3u);
  NamedPods named_pods;
  auto top = top_pods(events, 1, named_pods);
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].pod->uid, "uid-2");
  EXPECT_EQ(top[0].events, 3);
  // The next relist's record names the same pod through the same identity.
  auto again = top_pods(events, 1, named_pods);
  EXPECT_EQ(again[0].pod.get(), top[0].pod.get());
  EXPECT_EQ(count_running_pods(grouping), 2);
  EXPECT_EQ(count_container_states(containers)[static_cast<size_t>(RuntimeState::Running)], 2);
}

TEST(NamedPodsTest, PodsNoRecordNamesAnyMoreAreForgotten) {
  NamedPods named_pods;
  std::vector<std::shared_ptr<const NamedPod>> held;  // what the timeline still holds
  for (int i = 0; i < 10000; ++i) {
    auto pod = named_pods.get("uid-" + std::to_string(i), "pod-" + std::to_string(i), "churn");
    if (i % 100 == 0) held.push_back(pod);  // one pod in a hundred stays named
  }
  EXPECT_LE(named_pods.size(), 2 * held.size() + 64);
  // A held pod is still found as the same identity; a renamed uid gets a new one.
  EXPECT_EQ(named_pods.get("uid-500", "pod-500", "churn").get(), held[5].get());
  EXPECT_NE(named_pods.get("uid-500", "pod-500b", "churn").get(), held[5].get());
}

TEST_F(RelistStepsTest, UpdateCacheInspectsStoresOrRemoves) {
  runtime.add_sandbox("s1", "uid-1");
  runtime.add_container("c1", "uid-1", cri::CONTAINER_RUNNING, "s1");
  records.set_current(group());
  PodStatusCache cache;
  RelistRecord record;
  int seen = 0;
  ASSERT_TRUE(update_cache(runtime, clock, cache, "uid-1", records.current_pod("uid-1"), true, record,
                           [&](const PodStatus& s) { seen = static_cast<int>(s.containers.size()); }));
  EXPECT_EQ(seen, 1) << "the status is shown before the cache takes it";
  EXPECT_EQ(record.status_calls, 4);
  EXPECT_EQ(record.pods_inspected, 1);
  ASSERT_TRUE(cache.get("uid-1"));

  runtime.fail_container_status["c1"] = GrpcCode::kDeadlineExceeded;
  EXPECT_FALSE(update_cache(runtime, clock, cache, "uid-1", records.current_pod("uid-1"), true, record));
  EXPECT_EQ(record.inspection_failures, 1);
  EXPECT_TRUE(cache.get("uid-1")) << "a failed inspection keeps the last good status";

  EXPECT_TRUE(update_cache(runtime, clock, cache, "uid-1", nullptr, true, record));
  EXPECT_FALSE(cache.get("uid-1")) << "a pod gone from the runtime leaves the cache";
}

}  // namespace
}  // namespace plegscope
