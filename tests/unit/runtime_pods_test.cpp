#include "pleg/runtime_pods.h"

#include <gtest/gtest.h>

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
  auto pods = group_into_pods(rt.sandboxes, rt.containers);
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
  auto pods = group_into_pods(rt.sandboxes, rt.containers);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_TRUE(pods[0].containers.empty());
  EXPECT_EQ(pods[0].sandboxes[0].state, RuntimeState::Exited);
}

}  // namespace
}  // namespace plegscope
