// shim_lost: a container CRI-O lists as running whose conmon died, from
// CRI-O's /containers/<id> page (two periods in a row) or once beside
// CRI-O's own containers_stopped_monitor_count for its name; never on
// containerd, where a dead shim is noticed by the runtime itself.
#include <gtest/gtest.h>

#include "snapshot_builder.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;

const char* kContainer = "9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0";
const char* kName = "k8s_app_orphan-0_shop_uid-orphan_0";

Builder lost_conmon(const std::string& runtime, int checks, bool alive) {
  Builder b;
  b.s.runtime_name = runtime;
  b.s.runtime_version = runtime == "cri-o" ? "1.34.0" : "2.1.4";
  if (runtime == "cri-o") b.s.endpoint = "unix:///var/run/crio/crio.sock";
  b.s.crio_pages.socket = "unix:///var/run/crio/crio.sock";
  b.s.crio_pages.reachable = true;
  b.s.crio_pages.unmonitored.push_back({kContainer, kName, "4c5d6e7f", 31337, alive, checks});
  b.s.unmonitored_pods[kContainer] = {"shop", "orphan-0", "uid-orphan", "4c5d6e7f", "app"};
  return b;
}

TEST(ShimLost, ACrioContainerWithoutItsConmonTwiceIsNamedWithItsPod) {
  Builder b = lost_conmon("cri-o", 2, false);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kShimLost);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_EQ(c->advice, Advice::kFixPod);
  EXPECT_NE(c->summary.find("shop/orphan-0"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("conmon died"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("is gone"), std::string::npos) << c->summary;
  EXPECT_EQ(c->summary.find("shim"), std::string::npos) << c->summary;
  EXPECT_EQ(c->remedy.find("containerd"), std::string::npos) << c->remedy;
  bool init_evidence = false;
  for (const auto& e : c->evidence) init_evidence = init_evidence || e.signal.find("init_process_alive") == 0;
  EXPECT_TRUE(init_evidence);
}

TEST(ShimLost, OneLookIsNotEnoughAloneButIsBesideCriosOwnCount) {
  Builder once = lost_conmon("cri-o", 1, true);
  EXPECT_FALSE(find(once.report(), CauseId::kShimLost)) << "a conmon may start between the scan and the read";
  Builder counted = lost_conmon("cri-o", 1, true);
  counted.s.runtime_metrics.reachable = true;
  counted.s.runtime_metrics.kind = "crio";
  counted.s.runtime_metrics.stopped_monitors[kName] = 1;
  const Report r = counted.report();
  const Cause* c = find(r, CauseId::kShimLost);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.85);
  EXPECT_NE(c->summary.find("still runs, unwatched"), std::string::npos) << c->summary;
}

TEST(ShimLost, NeverOnContainerd) {
  Builder b = lost_conmon("containerd", 3, false);
  EXPECT_FALSE(find(b.report(), CauseId::kShimLost));
}

TEST(ShimLost, NothingLostIsNoCause) {
  Builder b;
  b.s.runtime_name = "cri-o";
  b.s.crio_pages.socket = "unix:///var/run/crio/crio.sock";
  b.s.crio_pages.reachable = true;
  EXPECT_FALSE(find(b.report(), CauseId::kShimLost));
}

}  // namespace
}  // namespace plegscope
