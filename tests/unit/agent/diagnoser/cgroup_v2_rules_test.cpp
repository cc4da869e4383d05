// The cgroup v2 witness in the diagnoser: a shim stopped by a frozen v2
// cgroup (state S, not D) is shim_hung's evidence as a shim in D is, with
// the same chain to a list hang; a freeze that never completes says so;
// containers whose cgroup disagrees with the runtime are listed; the
// report's cgroup v2 section keeps "unavailable" apart from zero.
#include <gtest/gtest.h>

#include "diagnoser/cgroup_stalls.h"
#include "diagnoser/report_sections/cgroup_v2.h"
#include "report/json.h"
#include "snapshot_builder.h"

namespace plegscope::testing {
namespace {

const char* kSandbox = "4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f";
const char* kFrozenPath = "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-poduid_web_0.slice";

PodRef web_pod() { return {"shop", "web-0", "uid-web-0", kSandbox, ""}; }

host::HostEvidence host_with_frozen_shim(double seconds, bool incomplete = false) {
  host::HostEvidence h;
  h.processes.total = 300;
  h.processes.helpers.push_back({4242, 1, "containerd-shim", "shim", 'S', 11, 120.0, kSandbox, "", "known"});
  host::BlockedTask b{4242, 4242, "containerd-shim", "shim", 'S', "do_freezer_trap", seconds, kSandbox, ""};
  b.frozen_cgroup = kFrozenPath;
  b.freeze_incomplete = incomplete;
  h.processes.blocked.push_back(b);
  h.cgroup_v2.mode = "unified";
  h.cgroup_v2.root = "/sys/fs/cgroup";
  h.cgroup_v2.driver = "systemd";
  return h;
}

void hang_lists(Builder& b, double seconds) { b.call_in_flight(op::kListContainers, seconds); }

// A frozen shim on a busy node, its calls slowed by real CPU pressure: the
// pressure cannot freeze a shim, so the shim ranks first and the pressure
// says it may slow it (chaos campaign: the pressure ranked first for the
// frozen shim's whole window).
TEST(CgroupV2ShimHung, AFrozenShimOutranksThePressureBesideIt) {
  Builder b;
  b.s.host = host_with_frozen_shim(30);
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  b.s.pressure->cpu_some_avg10 = 75;  // strong
  b.s.operations[op::kListContainers] = op_stats(0.6, 0.9);
  Report r = b.report();
  const Cause* shim = find(r, CauseId::kShimHung);
  const Cause* pressure = find(r, CauseId::kNodePressure);
  ASSERT_TRUE(shim && pressure) << r.summary;
  EXPECT_EQ(r.causes.front().id, CauseId::kShimHung) << r.summary;
  EXPECT_LT(pressure->confidence, shim->confidence);
}

TEST(CgroupV2ShimHung, AFrozenShimBehindHungListsIsTheCulpritWithTheChain) {
  Builder b;
  b.s.host = host_with_frozen_shim(0);
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  hang_lists(b, 40);
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& top = r.causes.front();
  EXPECT_EQ(top.id, CauseId::kShimHung);
  EXPECT_EQ(top.form, Form::kBehindHungLists);
  ASSERT_EQ(top.pods.size(), 1u);
  EXPECT_EQ(top.pods[0].name, "web-0");
  EXPECT_NE(top.summary.find("every list waits on that lock"), std::string::npos) << top.summary;
  EXPECT_NE(top.summary.find("frozen (cgroup.events frozen 1)"), std::string::npos) << top.summary;
  EXPECT_NE(top.summary.find(kFrozenPath), std::string::npos) << top.summary;
  EXPECT_TRUE(has_evidence(top, "seconds_frozen{pid=4242"));
  EXPECT_FALSE(has_evidence(top, "seconds_in_d"));
  EXPECT_NE(top.action.find("cgroup.freeze"), std::string::npos) << top.action;
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(hung);
  EXPECT_LT(hung->confidence, top.confidence);
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  EXPECT_EQ(r.host.processes.blocked[0].state, "S");
  EXPECT_EQ(r.host.processes.blocked[0].frozen_cgroup, kFrozenPath);
}

TEST(CgroupV2ShimHung, AFrozenShimWithNothingHangingIsARisk) {
  Builder b;
  b.s.host = host_with_frozen_shim(30);
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kNothingHangsYet);
  EXPECT_EQ(c->severity, Severity::kWarning);
}

TEST(CgroupV2ShimHung, AFreezeThatNeverCompletesIsWordedSo) {
  Builder b;
  b.s.host = host_with_frozen_shim(30, true);
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  hang_lists(b, 40);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("never frozen"), std::string::npos) << c->summary;
  EXPECT_TRUE(has_evidence(*c, "seconds_frozen{pid=4242,cgroup="));
}

TEST(CgroupV2Divergence, RunningWithoutProcessAndExitedWithProcesses) {
  std::vector<host::ContainerCgroup> cs = {
      {"aaa", "uid-a", "container", "p/a", false, false},  // running, empty: diverges
      {"bbb", "uid-b", "container", "p/b", true, false},   // exited, populated: diverges
      {"ccc", "uid-c", "container", "p/c", true, false},   // running, populated: agrees
      {"ddd", "uid-d", "container", "p/d", false, false},  // exited, empty: agrees
      {"eee", "uid-e", "container", "p/e", true, false},   // not listed: not compared
      {"fff", "uid-f", "container", "p/f", std::nullopt, false}};  // unreadable: not compared
  auto d = cgroup_divergences(cs, {"running", "exited", "running", "exited", "", "running"});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].kind, "running_without_process");
  EXPECT_EQ(d[0].container_id, "aaa");
  EXPECT_EQ(d[1].kind, "exited_with_processes");
  EXPECT_EQ(d[1].container_id, "bbb");
}

TEST(CgroupV2Report, SectionNamesPodsDivergencesAndKeepsUnavailableApart) {
  Builder b;
  b.s.host = host_with_frozen_shim(5);
  auto& v2 = b.s.host->cgroup_v2;
  host::CgroupV2Unit rt;
  rt.role = "runtime";
  rt.path = "system.slice/containerd.service";
  rt.owner = "containerd";
  rt.pids_current = 4000;
  rt.pids_max = 4915;
  rt.pids_events_max = 7;
  rt.unavailable = {"memory.events", "pids.events.local"};
  rt.pressure.push_back({"io", 8.0, 6.0, 10.0});
  v2.units.push_back(rt);
  v2.containers.push_back({"c0ffee00aa11", "uid-web-0", "container", "p/x", false, false});
  b.s.cgroup_container_states = std::vector<std::string>{"running"};
  b.s.cgroup_pods["uid-web-0"] = web_pod();
  Report r = b.report();
  ASSERT_TRUE(r.host.cgroup_v2);
  ASSERT_EQ(r.host.cgroup_v2->divergences.size(), 1u);
  EXPECT_EQ(r.host.cgroup_v2->divergences[0].pod, "shop/web-0");
  const nlohmann::json j = report_to_json(r);
  const auto& unit = j["host"]["cgroup_v2"]["units"][0];
  EXPECT_EQ(unit["pids_events_max"], 7);
  EXPECT_TRUE(unit["memory_oom_kill"].is_null()) << "unavailable is null, never 0";
  EXPECT_EQ(unit["unavailable"][0], "memory.events");
  EXPECT_EQ(unit["pressure"][0]["some_seconds"], 8.0);
  EXPECT_EQ(j["host"]["cgroup_v2"]["divergences"][0]["kind"], "running_without_process");
  EXPECT_EQ(j["host"]["processes"]["blocked"][0]["frozen_cgroup"], kFrozenPath);
}

TEST(CgroupV2Report, AV1HostHasNoSection) {
  Builder b;
  b.s.host = host_with_frozen_shim(5);
  b.s.host->cgroup_v2 = {};
  b.s.host->cgroup_v2.mode = "v1";
  EXPECT_FALSE(b.report().host.cgroup_v2);
}

TEST(CgroupV2Evidence, StallsNameTheUnitAndTheResourceAboveTheMaterialShare) {
  Snapshot s;
  s.host = host::HostEvidence{};
  host::CgroupV2Unit rt;
  rt.role = "runtime";
  rt.owner = "containerd";
  rt.pressure = {{"cpu", 0.5, std::nullopt, 10}, {"io", 6.0, 4.0, 10}, {"memory", std::nullopt, std::nullopt, 0}};
  s.host->cgroup_v2.units.push_back(rt);
  host::CgroupV2Unit pod;
  pod.role = "pod";
  pod.pod_uid = "uid-web-0";
  pod.pressure = {{"io", 2.0, 0.0, 10}};
  s.host->cgroup_v2.units.push_back(pod);
  DiagnoserThresholds t;
  Context c(s, t);
  Finding f = make_finding(CauseId::kRuntimeDiskSlow, Severity::kWarning, 0.5);
  add_cgroup_stalls(c, f, {"io"});
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence[0].signal, "cgroup_stall_share{unit=runtime,owner=containerd,resource=io}");
  EXPECT_DOUBLE_EQ(f.evidence[0].value, 0.6);
  EXPECT_EQ(f.evidence[1].signal, "cgroup_stall_share{unit=pod,pod=uid-web-0,resource=io}");
  Finding cpu = make_finding(CauseId::kRuntimeSlow, Severity::kWarning, 0.5);
  add_cgroup_stalls(c, cpu, {"cpu", "memory"});
  EXPECT_TRUE(cpu.evidence.empty()) << "5 % of the interval is no material stall, and no delta yet is none";
}

TEST(CgroupV2Evidence, ForksRefusedJoinPidExhaustion) {
  Builder b;
  b.s.host = host_with_frozen_shim(0);
  b.s.host->processes.blocked.clear();
  b.s.host->pid_limits.push_back({"runtime", "containerd", "system.slice/containerd.service", "", 4900, 4915,
                                  4900.0 / 4915, ""});
  host::CgroupV2Unit rt;
  rt.role = "runtime";
  rt.pids_events_max = 37;
  b.s.host->cgroup_v2.units.push_back(rt);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kPidExhaustion);
  ASSERT_TRUE(c);
  EXPECT_TRUE(has_evidence(*c, "cgroup_pids_forks_refused{unit=runtime}"));
}

}  // namespace
}  // namespace plegscope::testing
