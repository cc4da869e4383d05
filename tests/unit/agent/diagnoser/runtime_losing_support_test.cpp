// runtime_losing_support: the runtime answers CRI RuntimeConfig with
// UNIMPLEMENTED (the agent's own call) or the kubelet's
// kubelet_cri_losing_support says so. Always info: it names the runtime,
// the release the kubelet names and the upgrade, and never makes a node at
// risk or explains an unhealthy PLEG.
#include <gtest/gtest.h>

#include "kubelet/kubelet_metrics.h"
#include "snapshot_builder.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;

Builder old_runtime(RuntimeConfigAnswer answer, const std::string& kubelet = "v1.37.2") {
  Builder b;  // containerd 1.6.20
  b.s.runtime_config.answer = answer;
  if (!kubelet.empty()) b.s.kubelet.view.version = parse_kubelet_version(kubelet);
  return b;
}

bool has_evidence(const Cause& c, const std::string& signal) {
  for (const auto& e : c.evidence)
    if (e.signal == signal) return true;
  return false;
}

TEST(RuntimeLosingSupport, UnimplementedNamesTheRuntimeTheReleaseAndTheUpgradeAsInfo) {
  const Report r = old_runtime(RuntimeConfigAnswer::kUnimplemented).report();
  const Cause* c = find(r, CauseId::kRuntimeLosingSupport);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kInfo);
  EXPECT_EQ(c->advice, Advice::kNone);
  EXPECT_EQ(r.status, Status::kHealthy) << "nothing fails today";
  EXPECT_TRUE(has_evidence(*c, "runtime_config_unimplemented"));
  EXPECT_NE(c->summary.find("containerd 1.6.20"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("RuntimeConfig with UNIMPLEMENTED"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("1.38.0"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("v1.37.2"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("upgrade containerd to 2.x"), std::string::npos) << c->summary;
}

TEST(RuntimeLosingSupport, AnAnsweredCallIsNoCauseEvenBesideAStaleKubeletSeries) {
  Builder answered = old_runtime(RuntimeConfigAnswer::kAnswered);
  EXPECT_FALSE(find(answered.report(), CauseId::kRuntimeLosingSupport));
  // The kubelet started before the runtime's upgrade: its series lives on.
  answered.s.kubelet.view.cri_losing_support = "1.38.0";
  EXPECT_FALSE(find(answered.report(), CauseId::kRuntimeLosingSupport));
  EXPECT_FALSE(find(old_runtime(RuntimeConfigAnswer::kNotAsked).report(), CauseId::kRuntimeLosingSupport));
}

TEST(RuntimeLosingSupport, TheKubeletsSeriesAloneNamesItsOwnRelease) {
  Builder b = old_runtime(RuntimeConfigAnswer::kNotAsked, "v1.35.4");
  b.s.kubelet.view.cri_losing_support = "1.36.0";
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeLosingSupport);
  ASSERT_TRUE(c);
  EXPECT_TRUE(has_evidence(*c, "kubelet_cri_losing_support{1.36.0}"));
  EXPECT_FALSE(has_evidence(*c, "runtime_config_unimplemented"));
  EXPECT_NE(c->summary.find("kubelet_cri_losing_support{version=\"1.36.0\"}"), std::string::npos) << c->summary;
  // Both together weigh more than either.
  Builder both = old_runtime(RuntimeConfigAnswer::kUnimplemented);
  both.s.kubelet.view.cri_losing_support = "1.38.0";
  auto together = find(both.report(), CauseId::kRuntimeLosingSupport);
  ASSERT_TRUE(together);
  EXPECT_GT(together->confidence, c->confidence);
}

// Without the kubelet's series, the release its own release announces
// (cmd/kubelet/app/server.go of each): the newest known when unread.
TEST(RuntimeLosingSupport, TheReleaseNamedFollowsTheKubeletBeside) {
  const std::pair<std::string, std::string> cases[] = {
      {"v1.34.4", "1.36.0"}, {"v1.35.4", "1.36.0"}, {"v1.36.3", "1.37.0"}, {"v1.37.2", "1.38.0"}, {"", "1.38.0"}};
  for (const auto& [kubelet, release] : cases) {
    const Report r = old_runtime(RuntimeConfigAnswer::kUnimplemented, kubelet).report();
    const Cause* c = find(r, CauseId::kRuntimeLosingSupport);
    ASSERT_TRUE(c) << kubelet;
    EXPECT_NE(c->summary.find("Kubernetes " + release), std::string::npos) << kubelet << ": " << c->summary;
  }
}

TEST(RuntimeLosingSupport, NeverExplainsAnUnhealthyPleg) {
  Builder b = old_runtime(RuntimeConfigAnswer::kUnimplemented);
  b.s.healthy = false;
  b.s.health_message = "pleg was last seen active 3m5s ago; threshold is 3m0s";
  b.relists(3, relist(190, 185, 1));
  const Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_NE(r.causes.front().id, CauseId::kRuntimeLosingSupport);
  EXPECT_EQ(r.status, Status::kUnhealthy);
}

TEST(RuntimeLosingSupport, OnCrioTheUpgradeIsCriosOwn) {
  Builder b = old_runtime(RuntimeConfigAnswer::kUnimplemented);
  b.s.runtime_name = "cri-o";
  b.s.runtime_version = "1.27.0";
  b.s.endpoint = "unix:///var/run/crio/crio.sock";
  auto c = find(b.report(), CauseId::kRuntimeLosingSupport);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("upgrade CRI-O"), std::string::npos) << c->summary;
  EXPECT_EQ(c->summary.find("containerd"), std::string::npos) << c->summary;
}

}  // namespace
}  // namespace plegscope
