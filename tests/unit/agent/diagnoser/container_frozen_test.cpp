// container_frozen: a container's (or pod's) cgroup v2 cgroup frozen past
// the hang threshold, as the host scan lists it on a real cgroup v2 node
// (tests/vm frozen_systemd, frozen_runc): named with its pod and scope, a
// warning with the thaw as advice, critical only when a PLEG call for that
// pod waits on it past the threshold; never before the threshold, never
// for a helper's cgroup (shim_hung's), never a runtime restart.
#include <gtest/gtest.h>

#include "snapshot_builder.h"

namespace plegscope::testing {
namespace {

const char* kUid = "d8134ddc-5a1e-4c9b-8f3a-2b7c6d5e4f30";
const char* kSandbox = "4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f";
const char* kPodPath = "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podd8134ddc_5a1e_4c9b_8f3a_2b7c6d5e4f30.slice";
const char* kScope = "cri-containerd-2f691432aa11bb22cc33dd44ee55ff6600112233445566778899aabbccddeeff.scope";

std::string scope_path() { return std::string(kPodPath) + "/" + kScope; }

host::CgroupV2Unit unit(const std::string& role, const std::string& path, bool freeze, double seconds) {
  host::CgroupV2Unit u;
  u.role = role;
  u.path = path;
  u.pod_uid = kUid;
  u.populated = true;
  u.frozen = true;
  u.freeze = freeze;
  u.seconds_stopped = seconds;
  return u;
}

// The scan's view of `systemctl freeze` (or a left-behind cgroup.freeze) of
// one container's scope, frozen `seconds` ago.
Builder frozen_container(double seconds) {
  Builder b;
  host::HostEvidence h;
  h.processes.total = 200;
  h.cgroup_v2.mode = "unified";
  h.cgroup_v2.driver = "systemd";
  host::CgroupV2Unit kubepods;
  kubepods.role = "kubepods";
  kubepods.path = "kubepods.slice";
  kubepods.frozen = false;
  kubepods.freeze = false;
  h.cgroup_v2.units.push_back(kubepods);
  h.cgroup_v2.units.push_back(unit("container", scope_path(), true, seconds));
  b.s.host = h;
  b.s.cgroup_pods[kUid] = {"plegscope-vm", "web-0", kUid, kSandbox, ""};
  return b;
}

TEST(ContainerFrozen, AContainerFrozenPastTheThresholdIsAWarningNamingPodAndScope) {
  const Report r = frozen_container(12).report();
  const Cause* c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_EQ(c->advice, Advice::kFixPod);
  EXPECT_EQ(r.status, Status::kAtRisk);
  ASSERT_EQ(c->pods.size(), 1u);
  EXPECT_EQ(c->pods[0].name, "web-0");
  EXPECT_NE(c->summary.find("plegscope-vm/web-0"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find(kScope), std::string::npos) << c->summary;
  ASSERT_EQ(c->evidence.size(), 1u);
  EXPECT_EQ(c->evidence[0].signal, "seconds_frozen{cgroup=" + scope_path() + "}");
  EXPECT_DOUBLE_EQ(c->evidence[0].value, 12);
  EXPECT_EQ(c->evidence[0].threshold, std::optional<double>(10));
  // The thaw, both ways (the scan cannot read systemd's FreezerState).
  EXPECT_NE(c->action.find(std::string("systemctl thaw ") + kScope), std::string::npos) << c->action;
  EXPECT_NE(c->action.find("FreezerState"), std::string::npos) << c->action;
  EXPECT_NE(c->action.find("/cgroup.freeze"), std::string::npos) << c->action;
  EXPECT_NE(c->action.find("never restart the runtime"), std::string::npos) << c->action;
  EXPECT_NE(c->remedy.find("systemctl thaw"), std::string::npos) << c->remedy;
  // It explains no unhealthy PLEG by itself, and takes nothing from others.
  EXPECT_FALSE(find(r, CauseId::kShimHung));
  EXPECT_FALSE(find(r, CauseId::kRuntimeHung));
}

TEST(ContainerFrozen, NotBeforeTheThreshold) {
  EXPECT_FALSE(find(frozen_container(9.5).report(), CauseId::kContainerFrozen));
  EXPECT_FALSE(find(frozen_container(0).report(), CauseId::kContainerFrozen));
  DiagnoserThresholds t;
  t.hang_seconds = 5;  // the VM's --hang-threshold
  EXPECT_TRUE(find(frozen_container(9.5).report(t), CauseId::kContainerFrozen));
}

TEST(ContainerFrozen, AThawedContainerIsNotNamed) {
  Builder b = frozen_container(30);
  auto& u = b.s.host->cgroup_v2.units.back();
  u.frozen = false;
  u.freeze = false;
  u.seconds_stopped = 0;
  EXPECT_FALSE(find(b.report(), CauseId::kContainerFrozen));
  Builder none;
  EXPECT_FALSE(find(none.report(), CauseId::kContainerFrozen)) << "no host scan: nothing to judge";
}

TEST(ContainerFrozen, AFrozenPodIsNamedOnceByItsSliceNotEachContainer) {
  Builder b = frozen_container(40);
  auto& units = b.s.host->cgroup_v2.units;
  units.back().freeze = false;  // frozen by its pod's slice
  units.push_back(unit("pod", kPodPath, true, 40));
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->details<ContainerFrozenDetails>().frozen.size(), 1u);
  EXPECT_EQ(c->details<ContainerFrozenDetails>().frozen[0].path, kPodPath);
  EXPECT_EQ(c->details<ContainerFrozenDetails>().frozen[0].role, "pod");
  EXPECT_NE(c->summary.find("the pod cgroup"), std::string::npos) << c->summary;
  EXPECT_NE(c->action.find("systemctl thaw kubepods-burstable-pod"), std::string::npos) << c->action;
}

TEST(ContainerFrozen, AFreezeThatNeverCompletedAndOneFromAnUnreadParentSaySo) {
  Builder b = frozen_container(20);
  auto& u = b.s.host->cgroup_v2.units.back();
  u.frozen = false;  // cgroup.freeze 1, frozen 0
  Report r = b.report();
  const Cause* c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  EXPECT_TRUE(has_evidence(*c, "seconds_frozen{cgroup=" + scope_path() + ",complete=false}"));
  EXPECT_NE(c->summary.find("never frozen to the end"), std::string::npos) << c->summary;

  Builder inherited = frozen_container(20);
  inherited.s.host->cgroup_v2.units.back().freeze = false;  // a QoS slice froze it
  r = inherited.report();
  c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  EXPECT_TRUE(has_evidence(*c, "seconds_frozen{cgroup=" + scope_path() + ",inherited=true}"));
  EXPECT_NE(c->action.find("thaw the parent cgroup"), std::string::npos) << c->action;
}

TEST(ContainerFrozen, CgroupfsHasNoUnitToThawOnlyTheWrite) {
  Builder b = frozen_container(20);
  b.s.host->cgroup_v2.driver = "cgroupfs";
  b.s.host->cgroup_v2.units.back().path = "kubepods/burstable/pod" + std::string(kUid) + "/2f691432aa11";
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->action.find("systemctl"), std::string::npos) << c->action;
  EXPECT_NE(c->action.find("echo 0 > /sys/fs/cgroup/kubepods/burstable/pod"), std::string::npos) << c->action;
}

TEST(ContainerFrozen, CallsInFlightForThePodAreEvidenceAndAHungOneMakesItCritical) {
  Builder b = frozen_container(30);
  PodRef pod{"plegscope-vm", "web-0", kUid, kSandbox, ""};
  b.s.pod_calls.push_back({op::kContainerStatus, 2, true, {}, pod});
  Report r = b.report();
  const Cause* c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning) << "a call under the threshold holds nothing yet";
  EXPECT_TRUE(has_evidence(*c, "in_flight_seconds{container_status,pod=plegscope-vm/web-0}"));

  // Another pod's hung call is not this freeze's.
  Builder other = frozen_container(30);
  other.s.pod_calls.push_back({op::kContainerStatus, 25, true, {}, {"shop", "api-1", "uid-api-1", "sb-api", ""}});
  r = other.report();
  c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_FALSE(has_evidence(*c, "in_flight_seconds"));

  Builder hung = frozen_container(30);
  PodRef by_sandbox;
  by_sandbox.sandbox_id = kSandbox;  // a pod the PLEG has not inspected: matched by sandbox
  hung.s.pod_calls.push_back({op::kPodSandboxStatus, 25, true, {}, by_sandbox});
  r = hung.report();
  c = find(r, CauseId::kContainerFrozen);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kCritical);
  EXPECT_EQ(c->form, Form::kBehindHungCall);
  EXPECT_NE(c->summary.find("PodSandboxStatus"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("The relist waits on it"), std::string::npos) << c->summary;
  EXPECT_EQ(c->advice, Advice::kFixPod);
}

TEST(ContainerFrozen, AFrozenCgroupHoldingAHelperIsShimHungsNotThisOnes) {
  Builder b = frozen_container(30);
  host::BlockedTask t{4242, 4242, "containerd-shim", "shim", 'S', "do_freezer_trap", 30, kSandbox, ""};
  t.frozen_cgroup = scope_path();
  b.s.host->processes.helpers.push_back({4242, 1, "containerd-shim", "shim", 'S', 11, 120.0, kSandbox, "", "known"});
  b.s.host->processes.blocked.push_back(t);
  b.s.pods_by_sandbox[kSandbox] = {"plegscope-vm", "web-0", kUid, kSandbox, ""};
  const Report r = b.report();
  EXPECT_TRUE(find(r, CauseId::kShimHung));
  EXPECT_FALSE(find(r, CauseId::kContainerFrozen));
}

}  // namespace
}  // namespace plegscope::testing
