// Which pod a per-pod CRI call was for, by sandbox id, container id
// or pod uid, among the pods the relist inspected; bounded.
#include "pleg/pod_directory.h"

#include <gtest/gtest.h>

namespace plegscope {
namespace {

RuntimePod pod(const std::string& uid, const std::string& name, const std::string& sandbox,
               const std::string& container_id, const std::string& container_name) {
  RuntimePod p;
  p.uid = uid;
  p.name = name;
  p.namespace_ = "shop";
  p.sandboxes.push_back({sandbox, "", RuntimeState::Running});
  p.containers.push_back({container_id, container_name, RuntimeState::Running});
  return p;
}

TEST(PodDirectory, FindsThePodOfEachKindOfTarget) {
  PodDirectory d;
  d.remember(pod("uid-1", "web-0", "sb-1", "c-1", "app"));
  auto by_sandbox = d.find({CallTarget::Kind::kSandbox, "sb-1"});
  ASSERT_TRUE(by_sandbox);
  EXPECT_EQ(by_sandbox->name, "web-0");
  EXPECT_EQ(by_sandbox->namespace_, "shop");
  EXPECT_EQ(by_sandbox->container_name, "");
  auto by_container = d.find({CallTarget::Kind::kContainer, "c-1"});
  ASSERT_TRUE(by_container);
  EXPECT_EQ(by_container->container_name, "app");
  EXPECT_EQ(by_container->sandbox_id, "sb-1");
  auto by_uid = d.find({CallTarget::Kind::kPodUid, "uid-1"});
  ASSERT_TRUE(by_uid);
  EXPECT_EQ(by_uid->sandbox_id, "sb-1");
  EXPECT_FALSE(d.find({CallTarget::Kind::kSandbox, "sb-unknown"}));
  EXPECT_FALSE(d.find({}));
}

TEST(PodDirectory, APodSeenAgainReplacesItsOldIds) {
  PodDirectory d;
  d.remember(pod("uid-1", "web-0", "sb-1", "c-1", "app"));
  d.remember(pod("uid-1", "web-0", "sb-2", "c-2", "app"));  // recreated sandbox
  EXPECT_FALSE(d.find({CallTarget::Kind::kSandbox, "sb-1"}));
  EXPECT_TRUE(d.find({CallTarget::Kind::kSandbox, "sb-2"}));
  EXPECT_EQ(d.size(), 1u);
}

TEST(PodDirectory, AnIdClaimedByTwoPodsBelongsToTheLastUntilItIsForgotten) {
  // Ids as long as a runtime's (64 hex digits), so each is its own allocation.
  const std::string shared(64, 'a'), sandbox_1(64, 'b'), sandbox_2(64, 'c');
  PodDirectory d(2);
  d.remember(pod("uid-1", "a", sandbox_1, shared, "first"));
  d.remember(pod("uid-2", "b", sandbox_2, shared, "second"));
  auto owner = d.find({CallTarget::Kind::kContainer, shared});
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->uid, "uid-2");
  EXPECT_EQ(owner->container_name, "second");
  // uid-1 goes (past the bound): the id stays with uid-2, readable.
  d.remember(pod("uid-3", "c", std::string(64, 'd'), std::string(64, 'e'), "third"));
  EXPECT_FALSE(d.find({CallTarget::Kind::kSandbox, sandbox_1}));
  owner = d.find({CallTarget::Kind::kContainer, shared});
  ASSERT_TRUE(owner);
  EXPECT_EQ(owner->uid, "uid-2");
  EXPECT_EQ(owner->sandbox_id, sandbox_2);
  // uid-2 goes too: nothing claims it any more.
  d.remember(pod("uid-4", "d", std::string(64, 'f'), std::string(64, '0'), "fourth"));
  EXPECT_FALSE(d.find({CallTarget::Kind::kContainer, shared}));
  EXPECT_EQ(d.ids(), 4u);
}

TEST(PodDirectory, ForgetsTheOldestPastItsBound) {
  PodDirectory d(2);
  d.remember(pod("uid-1", "a", "sb-1", "c-1", "x"));
  d.remember(pod("uid-2", "b", "sb-2", "c-2", "x"));
  d.remember(pod("uid-3", "c", "sb-3", "c-3", "x"));
  EXPECT_EQ(d.size(), 2u);
  EXPECT_FALSE(d.find({CallTarget::Kind::kSandbox, "sb-1"}));
  EXPECT_FALSE(d.find({CallTarget::Kind::kContainer, "c-1"}));
  EXPECT_TRUE(d.find({CallTarget::Kind::kSandbox, "sb-3"}));
}

TEST(PodDirectory, APodGoneFromTheListsStaysFindableButNotListed) {
  PodDirectory d;
  d.remember(pod("uid-1", "web-0", "sb-1", "c-1", "app"));
  EXPECT_TRUE(d.find({CallTarget::Kind::kSandbox, "sb-1"})->listed);
  d.unlist("uid-1");
  auto gone = d.find({CallTarget::Kind::kSandbox, "sb-1"});
  ASSERT_TRUE(gone);  // a call made before still has a name
  EXPECT_EQ(gone->name, "web-0");
  EXPECT_FALSE(gone->listed);
  d.remember(pod("uid-1", "web-0", "sb-2", "c-2", "app"));  // listed again
  EXPECT_TRUE(d.find({CallTarget::Kind::kSandbox, "sb-2"})->listed);
  d.unlist("uid-unknown");  // no effect, no crash
  EXPECT_EQ(d.size(), 1u);
}

TEST(PodDirectory, PodsThatCameAndWentKeepOnlyTheLastFewGone) {
  PodDirectory d(4096, 8);
  d.remember(pod("uid-steady", "db-0", "sb-steady", "c-steady", "db"));
  for (int i = 0; i < 1000; ++i) {
    const std::string n = std::to_string(i);
    d.remember(pod("uid-" + n, "job-" + n, "sb-" + n, "c-" + n, "job"));
    d.unlist("uid-" + n);
    d.unlist("uid-" + n);  // a failed inspection is retried: counted once
  }
  EXPECT_EQ(d.size(), 1u + 8u);  // the listed pod and the last 8 gone
  EXPECT_EQ(d.ids(), 2u * (1u + 8u));
  EXPECT_TRUE(d.find({CallTarget::Kind::kSandbox, "sb-steady"}));
  EXPECT_TRUE(d.find({CallTarget::Kind::kSandbox, "sb-999"}));
  EXPECT_FALSE(d.find({CallTarget::Kind::kSandbox, "sb-991"}));
}

TEST(PodDirectory, ACrashLoopingPodsNewContainerIdsDoNotPileUp) {
  PodDirectory d;
  for (int restart = 0; restart < 1000; ++restart)
    d.remember(pod("uid-1", "web-0", "sb-1", "c-" + std::to_string(restart), "app"));
  EXPECT_EQ(d.size(), 1u);
  EXPECT_EQ(d.ids(), 2u);
  EXPECT_FALSE(d.find({CallTarget::Kind::kContainer, "c-998"}));
  EXPECT_TRUE(d.find({CallTarget::Kind::kContainer, "c-999"}));
}

}  // namespace
}  // namespace plegscope
