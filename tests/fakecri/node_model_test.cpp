// SimulatedNode, stepped with the unit tests' FakeClock: no sockets, no sleeps.
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_clock.h"
#include "node_model.h"

namespace fakecri {
namespace {

using plegscope::testing::FakeClock;

NodeShape shape(int pods, int containers, int exited = 0) {
  NodeShape s;
  s.pods = pods;
  s.containers_per_pod = containers;
  s.exited_per_pod = exited;
  return s;
}

std::vector<ContainerRecord> list(const SimulatedNode& node, const ContainerQuery& q = {}) {
  std::vector<ContainerRecord> out;
  node.visit_containers(q, [&](const ContainerRecord& c) { out.push_back(c); });
  return out;
}

TEST(SimulatedNode, PopulatesPodsContainersAndKubeletLabels) {
  FakeClock clock;
  SimulatedNode node(shape(5, 2, 3), clock, 1);
  NodeSummary s = node.summary();
  EXPECT_EQ(s.pods, 5u);
  EXPECT_EQ(s.sandboxes_ready, 5u);
  EXPECT_EQ(s.containers[static_cast<int>(ContainerState::Running)], 10u);
  EXPECT_EQ(s.containers[static_cast<int>(ContainerState::Exited)], 15u);
  for (const auto& c : list(node)) {
    EXPECT_EQ(c.id.size(), 64u);
    EXPECT_EQ(c.labels.at(kPodUidLabel), c.pod_uid);
    EXPECT_EQ(c.labels.at(kContainerNameLabel), c.name);
    EXPECT_TRUE(c.labels.count(kPodNameLabel) && c.labels.count(kPodNamespaceLabel));
    EXPECT_LE(c.created_at, unix_nanos(clock.now()));
    if (c.state == ContainerState::Exited) {
      EXPECT_GT(c.finished_at, c.started_at);
      EXPECT_FALSE(c.reason.empty());
    } else {
      EXPECT_GE(c.started_at, c.created_at);
    }
  }
}

TEST(SimulatedNode, SameSeedSameNode) {
  FakeClock clock;
  SimulatedNode a(shape(3, 1), clock, 42), b(shape(3, 1), clock, 42);
  EXPECT_EQ(list(a).front().id, list(b).front().id);
}

TEST(SimulatedNode, UnlabeledPodsLackTheUidLabel) {
  FakeClock clock;
  NodeShape s = shape(4, 1);
  s.unlabeled_pods = 1;
  SimulatedNode node(s, clock, 1);
  auto pods = node.pods();
  auto last = list(node, ContainerQuery{"", std::nullopt, pods.back().sandbox_ids[0], {}});
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].labels.count(kPodUidLabel), 0u);
  // So the kubelet-style label filter does not find it.
  EXPECT_TRUE(list(node, ContainerQuery{"", std::nullopt, "", {{kPodUidLabel, pods.back().uid}}}).empty());
}

TEST(SimulatedNode, FiltersByLabelStateSandboxAndIdPrefix) {
  FakeClock clock;
  SimulatedNode node(shape(10, 2, 1), clock, 1);
  const PodRecord pod = node.pods()[3];
  auto by_uid = list(node, ContainerQuery{"", std::nullopt, "", {{kPodUidLabel, pod.uid}}});
  EXPECT_EQ(by_uid.size(), 3u);
  for (const auto& c : by_uid) EXPECT_EQ(c.pod_uid, pod.uid);
  EXPECT_EQ(list(node, ContainerQuery{"", ContainerState::Running, "", {{kPodUidLabel, pod.uid}}}).size(), 2u);
  EXPECT_EQ(list(node, ContainerQuery{"", std::nullopt, pod.sandbox_ids[0], {}}).size(), 3u);
  EXPECT_EQ(list(node, ContainerQuery{"", ContainerState::Exited, "", {}}).size(), 10u);
  EXPECT_EQ(list(node, ContainerQuery{by_uid[0].id.substr(0, 12), std::nullopt, "", {}}).size(), 1u);
  EXPECT_TRUE(list(node, ContainerQuery{"", std::nullopt, "", {{kPodUidLabel, "nope"}}}).empty());

  size_t n = node.visit_sandboxes(SandboxQuery{"", SandboxState::Ready, {{kPodUidLabel, pod.uid}}}, [](auto&) {});
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(node.pod_ordinal_of_uid(pod.uid), 3);
  EXPECT_EQ(node.pod_ordinal_of_container(by_uid[0].id), 3);
}

TEST(SimulatedNode, CrashLoopRestartsAtTheRateAndKeepsOneExitedAttempt) {
  FakeClock clock;
  SimulatedNode node(shape(4, 2), clock, 1);
  std::vector<ModelEvent> events;
  node.set_event_sink([&](const ModelEvent& e) { events.push_back(e); });
  ChurnSpec churn;
  churn.crashloop_pods = 2;
  churn.crashloop_restarts_per_second = 4;
  node.set_churn(churn);
  clock.step(std::chrono::seconds(1));
  node.tick();
  // 4 restarts: each is STOPPED(old) + CREATED(new) + STARTED(new), and from
  // the second restart of a pod on, DELETED for the attempt beyond keep=1.
  size_t stopped = 0, created = 0, started = 0, deleted = 0;
  for (const auto& e : events) {
    stopped += e.kind == EventKind::Stopped;
    created += e.kind == EventKind::Created;
    started += e.kind == EventKind::Started;
    deleted += e.kind == EventKind::Deleted;
    ASSERT_TRUE(e.sandbox.has_value());
  }
  EXPECT_EQ(stopped, 4u);
  EXPECT_EQ(created, 4u);
  EXPECT_EQ(started, 4u);
  EXPECT_EQ(deleted, 2u);
  NodeSummary s = node.summary();
  EXPECT_EQ(s.containers[static_cast<int>(ContainerState::Running)], 8u);
  EXPECT_EQ(s.containers[static_cast<int>(ContainerState::Exited)], 2u);
  // Only the first two pods crash-loop; their app container reached attempt 2.
  auto pods = node.pods();
  for (int p = 0; p < 4; ++p) {
    uint32_t max_attempt = 0;
    for (const auto& c : list(node, ContainerQuery{"", std::nullopt, pods[p].sandbox_ids[0], {}})) {
      max_attempt = std::max(max_attempt, c.attempt);
    }
    EXPECT_EQ(max_attempt, p < 2 ? 2u : 0u) << "pod " << p;
  }
}

TEST(SimulatedNode, FractionalRatesAccumulate) {
  FakeClock clock;
  SimulatedNode node(shape(2, 1), clock, 1);
  ChurnSpec churn;
  churn.exited_per_second = 0.5;
  node.set_churn(churn);
  for (int i = 0; i < 10; ++i) {
    clock.step(std::chrono::milliseconds(500));
    node.tick();
  }
  EXPECT_EQ(node.summary().containers[static_cast<int>(ContainerState::Exited)], 2u);
}

TEST(SimulatedNode, ExitedJobsPileUpUnlessEachPodKeepsOnlyTheNewest) {
  for (int keep : {-1, 2}) {
    FakeClock clock;
    SimulatedNode node(shape(2, 1), clock, 1);
    ChurnSpec churn;
    churn.exited_per_second = 4;
    churn.keep_exited_jobs_per_pod = keep;
    node.set_churn(churn);
    for (int i = 0; i < 5; ++i) {
      clock.step(std::chrono::seconds(1));
      node.tick();
    }
    // 20 jobs over 2 pods, round-robin: 10 each when they pile up.
    const size_t per_pod = keep < 0 ? 10u : static_cast<size_t>(keep);
    EXPECT_EQ(node.summary().containers[static_cast<int>(ContainerState::Exited)], 2 * per_pod) << "keep " << keep;
    EXPECT_EQ(node.summary().containers[static_cast<int>(ContainerState::Running)], 2u) << "keep " << keep;
    if (keep < 0) continue;
    // The ones kept are each pod's newest: the highest job numbers.
    std::vector<int> kept;
    for (const auto& c : list(node)) {
      if (c.state == ContainerState::Exited) kept.push_back(std::stoi(c.name.substr(4)));
    }
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(kept, (std::vector<int>{16, 17, 18, 19}));
  }
}

TEST(SimulatedNode, RolloutReplacesOldestPods) {
  FakeClock clock;
  SimulatedNode node(shape(5, 1), clock, 1);
  ChurnSpec churn;
  churn.pods_created_per_second = 2;
  churn.pods_deleted_per_second = 2;
  node.set_churn(churn);
  clock.step(std::chrono::seconds(1));
  node.tick();
  auto pods = node.pods();
  ASSERT_EQ(pods.size(), 5u);
  EXPECT_EQ(pods.front().ordinal, 2);
  EXPECT_EQ(pods.back().ordinal, 6);
  EXPECT_EQ(node.summary().containers[static_cast<int>(ContainerState::Running)], 5u);
}

TEST(SimulatedNode, KillPodWithAndWithoutRestart) {
  FakeClock clock;
  SimulatedNode node(shape(2, 2), clock, 1);
  std::vector<ModelEvent> events;
  node.set_event_sink([&](const ModelEvent& e) { events.push_back(e); });
  auto pods = node.pods();
  EXPECT_EQ(node.kill_pod(pods[0].uid, 137, false), 2u);
  EXPECT_EQ(node.kill_pod(pods[0].uid, 137, false), 0u);  // nothing running any more
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, EventKind::Stopped);
  ASSERT_EQ(events[0].containers.size(), 2u);  // the whole pod, as after the change
  auto dead = node.container(events[0].container_id);
  EXPECT_EQ(dead->exit_code, 137);
  EXPECT_EQ(dead->reason, "Error");
  EXPECT_EQ(node.kill_pod(pods[1].uid, 1, true), 2u);
  EXPECT_EQ(node.summary().containers[static_cast<int>(ContainerState::Running)], 2u);
}

TEST(SimulatedNode, CriMutationsFollowTheLifecycle) {
  FakeClock clock;
  SimulatedNode node(shape(0, 0), clock, 1);
  auto sb = node.run_pod_sandbox("uid-1", "web", "default", 0, {{kPodUidLabel, "uid-1"}}, {});
  ASSERT_TRUE(sb.ok());
  auto c = node.create_container(sb.id, "nginx", 0, "nginx:1", {{kPodUidLabel, "uid-1"}}, {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(node.container(c.id)->state, ContainerState::Created);
  EXPECT_TRUE(node.start_container(c.id).ok());
  EXPECT_FALSE(node.start_container(c.id).ok());
  EXPECT_EQ(node.remove_container(c.id).error, MutationResult::Error::FailedPrecondition);
  EXPECT_TRUE(node.stop_container(c.id, 0, "Completed").ok());
  EXPECT_EQ(node.remove_pod_sandbox(sb.id).error, MutationResult::Error::FailedPrecondition);
  EXPECT_TRUE(node.stop_pod_sandbox(sb.id).ok());
  EXPECT_TRUE(node.remove_pod_sandbox(sb.id).ok());
  EXPECT_EQ(node.summary().pods, 0u);
  EXPECT_EQ(node.create_container("missing", "x", 0, "", {}, {}).error, MutationResult::Error::NotFound);
}

}  // namespace
}  // namespace fakecri
