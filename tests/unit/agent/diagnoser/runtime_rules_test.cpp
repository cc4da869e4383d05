// The causes that depend on how the runtime locks, on CRI-O beside
// containerd: containerd's ListContainers waits on each container's status
// lock, so one stuck helper or call hangs every list; CRI-O's takes no lock,
// so the same stuck helper or call holds only its own container's calls.
#include <gtest/gtest.h>

#include "diagnoser/runtime_model.h"
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
    const auto c = find(b.report(), CauseId::kContainerLockStall);
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

// A `runc update` under web-0's conmon in D for 30 s, and web-0's
// ContainerStatus taking 4 s (slow, not hung) while the lists answer.
Builder stuck_runc_and_slow_status(const std::string& runtime) {
  Builder b;
  b.s.runtime_name = runtime;
  b.s.runtime_version = runtime == "cri-o" ? "1.34.0" : "2.1.4";
  if (runtime == "cri-o") b.s.endpoint = "unix:///var/run/crio/crio.sock";
  b.s.host = host::HostEvidence{};
  b.s.host->processes.total = 300;
  b.s.host->processes.blocked.push_back({4300, 4300, "runc", "oci_runtime", 'D', "do_freezer_trap", 30, kSandbox, ""});
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  for (int i = 0; i < 3; ++i) {
    b.s.operations[op::kContainerStatus].recent.push_back({b.s.now, 4.0, GrpcCode::kOk, {CallTarget::Kind::kContainer, "c1"}});
    b.s.pod_calls.push_back({op::kContainerStatus, 4.0, false, b.s.now, web_pod()});
  }
  return b;
}

TEST(RuntimeRules, OnCrioAStuckRuncExplainsItsPodsSlowStatusCallsNotAListHang) {
  Builder b = stuck_runc_and_slow_status("cri-o");
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kBehindSlowStatus);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("ContainerStatus"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("conmon"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("take no container lock"), std::string::npos) << c->summary;
  EXPECT_FALSE(find(r, CauseId::kRuntimeHung)) << r.summary;
  if (const Cause* slow = find(r, CauseId::kPodStatusSlow))
    EXPECT_NE(slow->summary.find("shim_hung"), std::string::npos) << slow->summary;
}

TEST(RuntimeRules, OnContainerdTheSameStuckRuncIsNotReadAsOnlyAStatusSlowdown) {
  Builder b = stuck_runc_and_slow_status("containerd");
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->form, Form::kBehindSlowStatus) << "containerd's lists wait on the container's lock";
}

TEST(RuntimeModel, NameAndVersionSelectTheModel) {
  EXPECT_EQ(parse_runtime_version("1.34.0"), (RuntimeVersion{1, 34, 0}));
  EXPECT_EQ(parse_runtime_version("v2.0.2"), (RuntimeVersion{2, 0, 2}));
  EXPECT_EQ(parse_runtime_version("1.7.24~ds1"), (RuntimeVersion{1, 7, 24}));
  EXPECT_EQ(parse_runtime_version("2.1-rc.1"), (RuntimeVersion{2, 1, 0}));
  EXPECT_FALSE(parse_runtime_version(""));
  EXPECT_FALSE(parse_runtime_version("devel"));
  const RuntimeModel crio = runtime_model("cri-o", "1.34.0");
  EXPECT_EQ(crio.family, RuntimeFamily::kCrio);
  EXPECT_FALSE(crio.lists_wait_on_container_locks);
  EXPECT_TRUE(crio.watchdog_restarts);
  EXPECT_TRUE(crio.goroutines_page);
  EXPECT_FALSE(runtime_model("cri-o", "1.31.9").watchdog_restarts);
  EXPECT_TRUE(runtime_model("", "", "unix:///var/run/crio/crio.sock").watchdog_restarts);
  const RuntimeModel ctd = runtime_model("containerd", "v1.7.24");
  EXPECT_TRUE(ctd.lists_wait_on_container_locks);
  EXPECT_FALSE(ctd.watchdog_restarts);
  EXPECT_FALSE(ctd.go_cni_deadlock_possible);
  EXPECT_TRUE(runtime_model("containerd", "v2.0.2").go_cni_deadlock_possible);
  EXPECT_FALSE(runtime_model("containerd", "v2.0.3").go_cni_deadlock_possible);
  EXPECT_TRUE(runtime_model("containerd", "").go_cni_deadlock_possible);
  EXPECT_TRUE(runtime_model("docker", "27.0").lists_wait_on_container_locks);
}

}  // namespace
}  // namespace plegscope
