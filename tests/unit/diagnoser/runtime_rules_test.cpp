// The causes that depend on how the runtime locks, on CRI-O beside
// containerd: containerd's ListContainers waits on each container's status
// lock, so one stuck helper or call hangs every list; CRI-O's takes no lock,
// so the same stuck helper or call holds only its own container's calls.
#include <gtest/gtest.h>

#include "snapshot_builder.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;

const char* kSandbox = "4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f";

PodRef web_pod() { return {"shop", "web-0", "uid-web-0", kSandbox, "app"}; }

// A node of `runtime` whose one helper of web-0 has been in D for 30 s
// while the agent's ListContainers has been in flight for 40 s.
Builder stuck_helper_and_hung_lists(const std::string& runtime, const std::string& helper) {
  Builder b;
  b.s.runtime_name = runtime;
  if (runtime == "cri-o") b.s.endpoint = "unix:///var/run/crio/crio.sock";
  b.s.host = host::HostEvidence{};
  b.s.host->processes.total = 300;
  b.s.host->processes.blocked.push_back({4242, 4242, helper, "shim", 'D', "do_freezer_trap", 30, kSandbox, ""});
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  auto& lists = b.s.operations[op::kListContainers];
  lists.in_flight = 1;
  lists.oldest_in_flight_seconds = 40;
  lists.in_flight_calls.push_back({40, {}});
  return b;
}

TEST(RuntimeRules, OnContainerdTheListsWaitOnTheStuckShim) {
  Builder b = stuck_helper_and_hung_lists("containerd", "containerd-shim");
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kBehindHungLists);
  EXPECT_NE(c->summary.find("every list waits on that lock"), std::string::npos) << c->summary;
}

TEST(RuntimeRules, OnCrioAStuckConmonDoesNotExplainAListHang) {
  Builder b = stuck_helper_and_hung_lists("cri-o", "conmon");
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->form, Form::kBehindHungLists);
  EXPECT_EQ(c->summary.find("every list waits"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("conmon"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(hung) << "the list hang stays the runtime's own";
  EXPECT_EQ(hung->summary.find("see shim_hung"), std::string::npos) << hung->summary;
}

void update_stuck_inside(Builder& b, const std::string& runtime) {
  b.s.runtime_name = runtime;
  if (runtime == "cri-o") b.s.endpoint = "unix:///var/run/crio/crio.sock";
  b.s.runtime_metrics.endpoint = "http://127.0.0.1:1338/metrics";
  b.s.runtime_metrics.reachable = true;
  b.s.runtime_metrics.kind = runtime == "cri-o" ? "crio" : "containerd";
  b.s.runtime_metrics.in_flight.push_back({"UpdateContainerResources", 1, 45, 0});
}

TEST(RuntimeRules, AStuckUpdateHoldsTheListsOnContainerdOnly) {
  for (const std::string runtime : {"containerd", "cri-o"}) {
    SCOPED_TRACE(runtime);
    Builder b;
    update_stuck_inside(b, runtime);
    b.s.operations[op::kListContainers].in_flight = 1;
    b.s.operations[op::kListContainers].oldest_in_flight_seconds = 40;
    const Cause* c = find(b.report(), CauseId::kContainerLockStall);
    if (runtime == "containerd")
      EXPECT_TRUE(c);
    else
      EXPECT_FALSE(c) << "CRI-O's ListContainers takes no container lock: " << c->summary;
  }
}

TEST(RuntimeRules, OnCrioAStuckUpdateStillExplainsItsContainersHungStatus) {
  Builder b;
  update_stuck_inside(b, "cri-o");
  b.s.operations[op::kContainerStatus].in_flight = 1;
  b.s.operations[op::kContainerStatus].oldest_in_flight_seconds = 40;
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kContainerLockStall);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("ContainerStatus"), std::string::npos) << c->summary;
  EXPECT_EQ(c->summary.find("shim"), std::string::npos) << c->summary;
  EXPECT_EQ(c->remedy.find("containerd"), std::string::npos) << c->remedy;
  EXPECT_NE(c->remedy.find("CRI-O's lists take no container lock"), std::string::npos) << c->remedy;
}

}  // namespace
}  // namespace plegscope
