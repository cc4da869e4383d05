#include "pleg/runtime_pods.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "fake_runtime.h"

namespace plegscope {
namespace {

TEST(GroupIntoPods, ByUidLabelElseBySandbox) {
  testing::FakeRuntime rt;
  rt.add_sandbox("s1", "uid-a");
  rt.add_container("c1", "uid-a", cri::CONTAINER_RUNNING, "s1");
  // No uid label: belongs to the pod of its sandbox.
  rt.add_container("c2", "", cri::CONTAINER_EXITED, "s1", /*with_uid_label=*/false);
  // Labelled for a pod whose sandbox is gone.
  rt.add_container("c3", "uid-b", cri::CONTAINER_EXITED, "s-gone");
  // Neither label nor known sandbox: not a Kubernetes container.
  rt.add_container("c4", "", cri::CONTAINER_RUNNING, "s-unknown", false);
  auto pods = group_into_pods(rt.list_all_pod_sandboxes().value, rt.list_all_containers().value);
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].uid, "uid-a");
  EXPECT_EQ(pods[0].name, "pod-uid-a");
  EXPECT_EQ(pods[0].namespace_, "default");
  ASSERT_EQ(pods[0].containers.size(), 2u);
  EXPECT_EQ(pods[0].containers[1].id, "c2");
  EXPECT_EQ(pods[0].containers[1].state, RuntimeState::Exited);
  ASSERT_EQ(pods[0].sandboxes.size(), 1u);
  EXPECT_EQ(pods[1].uid, "uid-b");
  EXPECT_TRUE(pods[1].sandboxes.empty());
}

TEST(GroupIntoPods, SandboxWithoutContainersIsAPod) {
  testing::FakeRuntime rt;
  rt.add_sandbox("s1", "uid-a", cri::SANDBOX_NOTREADY);
  auto pods = group_into_pods(rt.list_all_pod_sandboxes().value, rt.list_all_containers().value);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_TRUE(pods[0].containers.empty());
  EXPECT_EQ(pods[0].sandboxes[0].state, RuntimeState::Exited);
}

// A runtime may list in a different order each time (containerd lists from
// a Go map): the same ids in the same states are the same pod.
TEST(SameState, AnyOrderSameIdsAndStates) {
  testing::FakeRuntime rt;
  rt.add_sandbox("s1", "uid-a");
  for (const char* id : {"c1", "c2", "c3"}) rt.add_container(id, "uid-a", cri::CONTAINER_RUNNING, "s1");
  const RuntimePod before = group_into_pods(rt.list_all_pod_sandboxes().value, rt.list_all_containers().value).at(0);
  std::reverse(rt.containers.begin(), rt.containers.end());
  auto sandboxes = rt.list_all_pod_sandboxes().value;
  auto containers = rt.list_all_containers().value;
  PodGrouping grouping;
  grouping.group(sandboxes, containers);
  ASSERT_EQ(grouping.size(), 1u);
  EXPECT_EQ(grouping[0].containers.front()->id, "c3");
  EXPECT_TRUE(same_state(grouping[0], before));

  rt.set_state("c2", cri::CONTAINER_EXITED);
  containers = rt.list_all_containers().value;
  grouping.group(sandboxes, containers);
  EXPECT_FALSE(same_state(grouping[0], before)) << "a state changed";

  rt.set_state("c2", cri::CONTAINER_RUNNING);
  rt.remove("c3");
  rt.add_container("c1", "uid-a", cri::CONTAINER_RUNNING, "s1");  // c1 twice, c3 gone
  containers = rt.list_all_containers().value;
  grouping.group(sandboxes, containers);
  EXPECT_FALSE(same_state(grouping[0], before)) << "a duplicate id does not stand in for a missing one";
}

TEST(PodGrouping, ReusedGroupingForgetsThePreviousRelist) {
  testing::FakeRuntime rt;
  rt.add_sandbox("s1", "uid-a");
  rt.add_sandbox("s2", "uid-b");
  rt.add_container("c1", "uid-b", cri::CONTAINER_RUNNING, "s2");
  PodGrouping grouping;
  auto sandboxes = rt.list_all_pod_sandboxes().value;
  auto containers = rt.list_all_containers().value;
  grouping.group(sandboxes, containers);
  ASSERT_EQ(grouping.size(), 2u);
  rt.remove("s1");
  rt.remove("c1");
  auto fewer_sandboxes = rt.list_all_pod_sandboxes().value;
  auto no_containers = rt.list_all_containers().value;
  grouping.group(fewer_sandboxes, no_containers);
  ASSERT_EQ(grouping.size(), 1u);
  EXPECT_EQ(grouping[0].uid, "uid-b");
  EXPECT_TRUE(grouping[0].containers.empty());
  EXPECT_EQ(grouping[0].sandboxes.size(), 1u);
}

}  // namespace
}  // namespace plegscope
