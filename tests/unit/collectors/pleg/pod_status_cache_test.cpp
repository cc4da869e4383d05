// The pod status cache keeps, for as long as a pod lives, what plegscope
// reads from it (/debug/pods, the evented PLEG's newer-wins rule), not the
// whole answer of the status calls.
#include <gtest/gtest.h>

#include "pleg/pod_status_cache.h"

namespace plegscope {
namespace {

cri::ContainerStatus container_status_as_a_runtime_sends_it() {
  cri::ContainerStatus c;
  c.set_id("c1");
  c.mutable_metadata()->set_name("app");
  c.mutable_metadata()->set_attempt(3);
  c.set_state(cri::CONTAINER_EXITED);
  c.set_started_at(1'000);
  c.set_finished_at(2'000);
  c.set_exit_code(137);
  c.set_reason("OOMKilled");
  c.mutable_image()->set_image("registry.k8s.io/pause:3.9");
  (*c.mutable_image()->mutable_annotations())["a"] = "b";
  (*c.mutable_labels())["io.kubernetes.pod.uid"] = "uid-1";
  (*c.mutable_annotations())["io.kubernetes.container.terminationMessagePath"] = "/dev/termination-log";
  c.set_log_path("/var/log/pods/uid-1/app/3.log");
  // Field 14 (mounts) is beyond our CRI subset: protobuf keeps it as an
  // unknown field, as it does for whatever a real runtime adds.
  std::string bytes = c.SerializeAsString();
  bytes += std::string("\x72\x03\x0a\x01x", 5);  // field 14, length 3: a mount with a path
  cri::ContainerStatus parsed;
  EXPECT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_FALSE(parsed.GetReflection()->GetUnknownFields(parsed).empty());
  return parsed;
}

TEST(PodStatusCache, KeepsWhatIsReadAndDropsTheRest) {
  PodStatusCache cache;
  PodStatus status;
  status.uid = "uid-1";
  status.name = "web-0";
  status.namespace_ = "shop";
  status.containers.push_back(container_status_as_a_runtime_sends_it());
  cri::PodSandboxStatus sandbox;
  sandbox.set_id("s1");
  sandbox.mutable_metadata()->set_name("web-0");
  sandbox.set_state(cri::SANDBOX_READY);
  sandbox.set_created_at(500);
  (*sandbox.mutable_labels())["io.kubernetes.pod.uid"] = "uid-1";
  (*sandbox.mutable_annotations())["kubernetes.io/config.seen"] = "now";
  status.sandboxes.push_back(sandbox);
  ASSERT_TRUE(cache.set(status));

  auto kept = cache.get("uid-1");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->name, "web-0");
  EXPECT_EQ(kept->namespace_, "shop");
  ASSERT_EQ(kept->containers.size(), 1u);
  const auto& c = kept->containers[0];
  EXPECT_EQ(c.id(), "c1");
  EXPECT_EQ(c.metadata().name(), "app");
  EXPECT_EQ(c.metadata().attempt(), 3u);
  EXPECT_EQ(c.state(), cri::CONTAINER_EXITED);
  EXPECT_EQ(c.started_at(), 1'000);
  EXPECT_EQ(c.finished_at(), 2'000);
  EXPECT_EQ(c.exit_code(), 137);
  EXPECT_EQ(c.reason(), "OOMKilled");
  EXPECT_EQ(c.image().image(), "registry.k8s.io/pause:3.9");
  EXPECT_TRUE(c.labels().empty());
  EXPECT_TRUE(c.annotations().empty());
  EXPECT_TRUE(c.image().annotations().empty());
  EXPECT_EQ(c.log_path(), "");
  EXPECT_TRUE(c.GetReflection()->GetUnknownFields(c).empty());

  ASSERT_EQ(kept->sandboxes.size(), 1u);
  const auto& s = kept->sandboxes[0];
  EXPECT_EQ(s.id(), "s1");
  EXPECT_EQ(s.metadata().name(), "web-0");
  EXPECT_EQ(s.state(), cri::SANDBOX_READY);
  EXPECT_EQ(s.created_at(), 500);
  EXPECT_TRUE(s.labels().empty());
  EXPECT_TRUE(s.annotations().empty());
}

TEST(PodStatusCache, AnOlderObservationDoesNotReplaceANewerOne) {
  PodStatusCache cache;
  PodStatus newer;
  newer.uid = "uid-1";
  newer.name = "newer";
  newer.timestamp = TimePoint{} + std::chrono::seconds(20);
  PodStatus older = newer;
  older.name = "older";
  older.timestamp = TimePoint{} + std::chrono::seconds(10);
  EXPECT_TRUE(cache.set(newer));
  EXPECT_FALSE(cache.set(older));
  EXPECT_EQ(cache.get("uid-1")->name, "newer");
}

}  // namespace
}  // namespace plegscope

namespace plegscope {
namespace {

// Statuses are stored serialized: every sandbox and container comes back, in
// order, and a pod with none stays a pod.
TEST(PodStatusCache, ManyStatusesComeBackInOrder) {
  PodStatusCache cache;
  PodStatus status;
  status.uid = "uid-many";
  for (int i = 0; i < 3; ++i) {
    cri::PodSandboxStatus s;
    s.set_id("s" + std::to_string(i));
    s.set_state(i == 0 ? cri::SANDBOX_READY : cri::SANDBOX_NOTREADY);
    status.sandboxes.push_back(s);
  }
  for (int i = 0; i < 40; ++i) {
    cri::ContainerStatus c;
    c.set_id("c" + std::to_string(i));
    c.set_exit_code(i);
    status.containers.push_back(c);
  }
  ASSERT_TRUE(cache.set(status));
  PodStatus empty;
  empty.uid = "uid-empty";
  ASSERT_TRUE(cache.set(empty));

  auto kept = cache.get("uid-many");
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->sandboxes.size(), 3u);
  ASSERT_EQ(kept->containers.size(), 40u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(kept->sandboxes[i].id(), "s" + std::to_string(i));
  EXPECT_EQ(kept->sandboxes[1].state(), cri::SANDBOX_NOTREADY);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(kept->containers[i].exit_code(), i);
  auto none = cache.get("uid-empty");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->sandboxes.empty());
  EXPECT_TRUE(none->containers.empty());
  EXPECT_EQ(cache.snapshot().size(), 2u);
}

}  // namespace
}  // namespace plegscope
