// The pod behind per-pod calls, and the four host causes, each at
// and just inside its thresholds, built by hand on the healthy Builder node.
#include <gtest/gtest.h>

#include "diagnoser/advice.h"
#include "snapshot_builder.h"
#include "pleg/pleg_options.h"

namespace plegscope::testing {
namespace {

const char* kSandbox = "4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f";

PodRef web_pod() { return {"shop", "web-0", "uid-web-0", kSandbox, ""}; }

// A host scan of a quiet node: a shim per pod, nothing blocked, few zombies.
host::HostEvidence quiet_host() {
  host::HostEvidence h;
  h.processes.total = 300;
  h.processes.helpers.push_back({4242, 1, "containerd-shim", "shim", 'S', 11, 120.0, kSandbox, "", "known"});
  h.processes.zombies = 3;
  h.pid_limits.push_back({"runtime", "containerd", "system.slice/containerd.service", "", 400, 4000, 0.1, ""});
  h.pid_limits.push_back({"node_pid_max", "", "", "", 1234, 4194304, 1234.0 / 4194304, ""});
  host::RuntimeDisk d;
  d.device = "vda1";
  d.mount = "/";
  d.latency_ms = 2;
  d.utilization = 0.1;
  d.interval_seconds = 5;
  h.runtime_disk.value = d;
  return h;
}

host::BlockedTask shim_in_d(double seconds, const std::string& wchan = "nfs_wait_bit_killable") {
  return {4242, 4242, "containerd-shim", "shim", 'D', wchan, seconds, kSandbox, ""};
}

// PodSandboxStatus of web-0 in flight for `seconds`.
void hang_status_call(Builder& b, double seconds) {
  b.call_in_flight(op::kPodSandboxStatus, seconds, {CallTarget::Kind::kSandbox, kSandbox});
  b.s.pod_calls.push_back({op::kPodSandboxStatus, seconds, true, {}, web_pod()});
}

// ------------------------------------------------------- the pod named

TEST(PodNamed, HungStatusCallWithFastListsIsAStuckPodNotAHungRuntime) {
  Builder b;
  hang_status_call(b, 14);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kStuckPod);
  ASSERT_EQ(c->pods.size(), 1u);
  EXPECT_EQ(c->pods[0].name, "web-0");
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("not the runtime"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("Restarting the runtime does not"), std::string::npos) << c->summary;
}

TEST(PodNamed, AHungUnfilteredListIsStillAHungRuntime) {
  Builder b;
  hang_status_call(b, 14);
  auto& lists = b.s.operations[op::kListContainers];
  lists.in_flight = 1;
  lists.oldest_in_flight_seconds = 12;
  lists.in_flight_calls.push_back({12, {}});
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kCallHung);
  EXPECT_EQ(c->pods.size(), 1u);  // the pod is still named
}

// The kubelet 1.36 relists one pod after its sync with ListContainers
// filtered by the pod's uid: that list reads the runtime's store, not the
// pod's shim, so its hang is the runtime's even while other lists answer.
TEST(PodNamed, AHungListFilteredByOnePodIsAHungRuntimeNotAStuckPod) {
  Builder b;
  auto& lists = b.s.operations[op::kListContainers];
  lists.in_flight = 1;
  lists.oldest_in_flight_seconds = 14;
  lists.in_flight_calls.push_back({14, {CallTarget::Kind::kPodUid, "uid-web-0"}});
  b.s.pod_calls.push_back({op::kListContainers, 14, true, {}, web_pod()});
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kCallHung);
  ASSERT_EQ(c->pods.size(), 1u);  // the pod whose list hangs is still named
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
  EXPECT_EQ(c->summary.find("not the runtime"), std::string::npos) << c->summary;
}

// The 1.36+ kubelet's on-demand relist of web-0 (its lists filtered by the
// pod's uid, on the worker and lock of the global relist) in flight for
// `seconds` on ListContainers; the last global relist started before it.
void hang_pod_relist(Builder& b, double seconds, KubeletModel model = newest_kubelet_model()) {
  for (auto& r : b.s.timeline) r.start -= secs(seconds + 1);
  b.s.last_seen = kNow - secs(seconds + 2);
  auto& lists = b.s.operations[op::kListContainers];
  lists.in_flight = 1;
  lists.oldest_in_flight_seconds = seconds;
  lists.in_flight_calls.push_back({seconds, {CallTarget::Kind::kPodUid, "uid-web-0"}});
  b.s.pod_calls.push_back({op::kListContainers, seconds, true, {}, web_pod()});
  RelistRecord pod_relist;
  pod_relist.start = kNow - secs(seconds);
  pod_relist.in_progress = true;
  pod_relist.lists_done = 1;
  pod_relist.duration = secs(seconds);
  pod_relist.pod = std::make_shared<const NamedPod>(NamedPod{"uid-web-0", "web-0", "shop"});
  b.s.in_progress = pod_relist;
  b.s.relist_in_progress_since = pod_relist.start;
  b.s.kubelet.view.model.behaviour = model;
}

TEST(PodNamed, AHungPodRelistIsSaidToHoldTheGlobalRelist) {
  Builder b;
  hang_pod_relist(b, 14);
  // The kubelet's own relists read flat for as long.
  b.s.kubelet.view.samples = 8;
  b.s.kubelet.view.seconds_since_relist_advanced = 15;
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.id, CauseId::kRuntimeHung);
  EXPECT_EQ(c.form, Form::kCallHung);
  EXPECT_TRUE(c.details<RuntimeHungDetails>().pod_relist);
  EXPECT_EQ(c.advice, Advice::kRestartRuntime) << "the runtime's hang, not the pod's";
  ASSERT_FALSE(c.pods.empty());
  EXPECT_EQ(c.pods[0].name, "web-0");
  EXPECT_TRUE(has_evidence(c, "pod_relist_in_progress_seconds"));
  EXPECT_TRUE(has_evidence(c, "kubelet_relist_flat_seconds"));
  EXPECT_NE(c.summary.find("on-demand relist of shop/web-0"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("no global relist can start"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("has not advanced for 15s"), std::string::npos) << c.summary;
  EXPECT_EQ(c.summary.find("not the runtime"), std::string::npos) << c.summary;
}

TEST(PodNamed, APodRelistHungWithTheKubeletUnreadClaimsNoKubeletFigure) {
  Builder b;
  hang_pod_relist(b, 14);  // no kubelet samples
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->details<RuntimeHungDetails>().pod_relist);
  EXPECT_FALSE(c->details<RuntimeHungDetails>().kubelet_flat_seconds);
  EXPECT_EQ(c->summary.find("has not advanced"), std::string::npos) << c->summary;
}

TEST(PodNamed, BeforeTheKubelet136AFilteredListHangIsNoPodRelist) {
  // A 1.35 kubelet has no on-demand relists (its filtered lists are the
  // inspection inside a global relist): the same hang, no such words.
  Builder b;
  hang_pod_relist(b, 14, kubelet_model_of(1, 35));
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kCallHung);
  EXPECT_FALSE(c->details<RuntimeHungDetails>().pod_relist);
  EXPECT_EQ(c->summary.find("on-demand relist"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
}

TEST(PodNamed, AGlobalRelistInFlightIsNoPodRelist) {
  // The relist in flight is the global one (no pod on its record): the
  // filtered list is some other client's, not the relist of that pod.
  Builder b;
  hang_pod_relist(b, 14);
  b.s.in_progress->pod = nullptr;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->details<RuntimeHungDetails>().pod_relist);
  EXPECT_EQ(c->summary.find("on-demand relist"), std::string::npos) << c->summary;
}

TEST(PodNamed, APodRelistJustUnderTheHangThresholdIsNoHang) {
  Builder b;
  hang_pod_relist(b, 10);  // not past 10 s
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  EXPECT_TRUE(!c || !c->details<RuntimeHungDetails>().pod_relist);
}

TEST(PodNamed, JustUnderTheHangThresholdIsNoHang) {
  Builder b;
  hang_status_call(b, 10);  // not past 10 s
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeHung));
}

TEST(PodNamed, SlowStatusCallsNameTheirPods) {
  Builder b;
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.8, 1.5);
  b.s.pod_calls.push_back({op::kPodSandboxStatus, 1.5, false, kNow - seconds(2), web_pod()});
  Report r = b.report();
  const Cause* c = find(r, CauseId::kPodStatusSlow);
  ASSERT_TRUE(c);
  ASSERT_FALSE(c->pods.empty());
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
  ASSERT_EQ(r.runtime.slowest_pods.size(), 1u);
  EXPECT_EQ(r.runtime.slowest_pods[0].pod, "shop/web-0");
  EXPECT_EQ(r.runtime.slowest_pods[0].sandbox_id, kSandbox);
}

// ------------------------------------------------------------ shim_hung

TEST(ShimHung, AShimInDForTheHangThresholdIsNamedWithItsPodAndWchan) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(10));
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("4242"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("remote storage"), std::string::npos) << c->summary;
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  EXPECT_EQ(r.host.processes.blocked[0].pod, "shop/web-0");
}

TEST(ShimHung, JustUnderTheHangThresholdAndNoHungCallIsNotNamed) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(9.9));
  EXPECT_FALSE(find(b.report(), CauseId::kShimHung));
}

TEST(ShimHung, TheRuntimeDaemonInDIsNotAPodsShim) {
  Builder b;
  b.s.host = quiet_host();
  host::BlockedTask daemon = shim_in_d(60);
  daemon.comm = "containerd";
  daemon.role = "daemon";
  daemon.sandbox_id.clear();
  b.s.host->processes.blocked.push_back(daemon);
  EXPECT_FALSE(find(b.report(), CauseId::kShimHung));
}

TEST(ShimHung, ExplainsTheHungCallOfItsPodAndRanksAboveRuntimeHung) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(2, "ovl_sync_fs"));  // seen in D only briefly so far
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  hang_status_call(b, 30);
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kShimHung);
  const Cause* shim = find(r, CauseId::kShimHung);
  EXPECT_EQ(shim->form, Form::kBehindHungCall);
  EXPECT_NE(shim->summary.find("disk or unmount stall"), std::string::npos) << shim->summary;
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(hung);
  EXPECT_LT(hung->confidence, shim->confidence);
  EXPECT_NE(hung->summary.find("see shim_hung"), std::string::npos) << hung->summary;
}

// As shipped (every capability dropped), a shim's wchan reads 0: the report
// says the kernel hides it, why, and what would show it; never a bare "unknown".
TEST(ShimHung, AHiddenWchanSaysWhyAndWhatWouldShowIt) {
  Builder b;
  b.s.host = quiet_host();
  host::BlockedTask hidden = shim_in_d(30, "0");
  hidden.wchan_hidden = host::WchanHidden::kMissingCapabilities;
  b.s.host->processes.blocked.push_back(hidden);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->summary.find("unknown"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("wchan reads 0"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("ptrace access"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("CAP_SYS_PTRACE"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("hung-task report"), std::string::npos) << c->summary;
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  EXPECT_EQ(r.host.processes.blocked[0].wchan_hidden, "missing_capabilities");

  b.s.host->processes.blocked[0].wchan_hidden = host::WchanHidden::kDenied;
  const Report denied = b.report();
  c = find(denied, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("AppArmor"), std::string::npos) << c->summary;
}

// A shim with 12 threads in D is one process in the report, with its thread
// count and its worst (longest in D) task's state and wchan.
// --kernel-stacks: the worst task sleeps in a futex, frozen in place; another
// thread's stack is the freezer's. The process entry and shim_hung take the
// telling one, and its top frame is the evidence.
TEST(ShimHung, KernelStacksNameWhereItWaitsFromTheTellingTasksTopFrame) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.helpers[0].threads = 3;
  host::BlockedTask worst = shim_in_d(40, "0");
  worst.wchan_hidden = host::WchanHidden::kMissingCapabilities;
  worst.kernel_stack = {"futex_do_wait", "__futex_wait", "futex_wait", "do_futex"};
  host::BlockedTask frozen = worst;
  frozen.tid = 4243;
  frozen.seconds_in_d = 39;
  frozen.kernel_stack = {"__refrigerator", "get_signal", "arch_do_signal_or_restart"};
  host::BlockedTask unread = worst;
  unread.tid = 4244;
  unread.kernel_stack.clear();
  b.s.host->processes.blocked = {worst, frozen, unread};
  b.s.host->processes.kernel_stacks.enabled = b.s.host->processes.kernel_stacks.available = true;
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  Report r = b.report();
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  const auto& e = r.host.processes.blocked[0];
  ASSERT_TRUE(e.kernel_stack);
  EXPECT_EQ(e.kernel_stack->tid, 4243);
  EXPECT_EQ(e.kernel_stack->top, "__refrigerator");
  EXPECT_EQ(e.kernel_stack->frame_class, "freezer");
  EXPECT_EQ(e.tid, 4242) << "the worst task stays the worst";
  EXPECT_TRUE(r.host.processes.kernel_stacks.available);
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("in the kernel at __refrigerator, by its kernel stack: the cgroup freezer"),
            std::string::npos)
      << c->summary;
  EXPECT_EQ(c->summary.find("CAP_SYS_PTRACE"), std::string::npos) << "the stack replaces the hidden wchan";
  bool evidence = false;
  for (const auto& ev : c->evidence)
    evidence = evidence || ev.signal == "kernel_stack{pid=4242,frame=__refrigerator,class=freezer}";
  EXPECT_TRUE(evidence);

  // Without stacks (the mode unavailable) the same process is worded by its wchan.
  for (auto& t : b.s.host->processes.blocked) t.kernel_stack.clear();
  b.s.host->processes.kernel_stacks.available = false;
  b.s.host->processes.kernel_stacks.error = "the agent lacks CAP_BPF and CAP_PERFMON";
  Report fallback = b.report();
  EXPECT_FALSE(fallback.host.processes.blocked[0].kernel_stack);
  EXPECT_EQ(*fallback.host.processes.kernel_stacks.error, "the agent lacks CAP_BPF and CAP_PERFMON");
  const Cause* f = find(fallback, CauseId::kShimHung);
  ASSERT_TRUE(f);
  EXPECT_NE(f->summary.find("CAP_SYS_PTRACE"), std::string::npos) << f->summary;
}

TEST(ShimHung, BlockedProcessesAreListedOnceEachWithTheirThreads) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.helpers[0].threads = 12;
  b.s.host->processes.blocked.push_back(shim_in_d(40, "ovl_sync_fs"));  // the scanner's order: longest first
  for (int i = 1; i < 12; ++i) {
    host::BlockedTask t = shim_in_d(35 - i, "rwsem_down_write_slowpath");
    t.tid = 4242 + i;
    b.s.host->processes.blocked.push_back(t);
  }
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  Report r = b.report();
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  const auto& e = r.host.processes.blocked[0];
  EXPECT_EQ(e.pid, 4242);
  EXPECT_EQ(e.tid, 4242);
  EXPECT_EQ(e.tasks_in_d, 12);
  EXPECT_EQ(e.threads, 12);
  EXPECT_EQ(e.wchan, "ovl_sync_fs");
  EXPECT_DOUBLE_EQ(e.seconds, 40);
  EXPECT_EQ(e.pod, "shop/web-0");
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("12 tasks"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("in ovl_sync_fs"), std::string::npos) << c->summary;
}

TEST(ShimHung, APidNamespaceThatCannotDie) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(30, "zap_pid_ns_processes"));
  Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("pid namespace"), std::string::npos) << c->summary;
}

// ------------------------------------------- the causal chain, ranked

// The agent's unfiltered ListContainers in flight for `seconds`.
void hang_lists(Builder& b, double seconds) { b.call_in_flight(op::kListContainers, seconds); }

const char* kOtherSandbox = "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d";
PodRef api_pod() { return {"shop", "api-1", "uid-api-1", kOtherSandbox, ""}; }

// Many shims; one of them (web-0's) stuck in D, seen there only since the
// hang's scan: every list hangs on it.
TEST(CausalChain, OneStuckShimAmongManyRanksItsPodFirstWithTheChain) {
  Builder b;
  b.s.host = quiet_host();
  for (int i = 0; i < 40; ++i)
    b.s.host->processes.helpers.push_back({5000 + i, 1, "containerd-shim", "shim", 'S', 11, 60.0,
                                           "healthy" + std::to_string(i), "", "known"});
  b.s.host->processes.blocked.push_back(shim_in_d(0, "ovl_sync_fs"));
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  hang_lists(b, 94);
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& top = r.causes.front();
  EXPECT_EQ(top.id, CauseId::kShimHung);
  EXPECT_EQ(top.form, Form::kBehindHungLists);
  ASSERT_EQ(top.pods.size(), 1u) << "only the stuck one of 41 shims";
  EXPECT_EQ(top.pods[0].name, "web-0");
  EXPECT_NE(top.summary.find("ListContainers has been in flight for 1m34s"), std::string::npos) << top.summary;
  EXPECT_NE(top.summary.find("every list waits on that lock"), std::string::npos) << top.summary;
  EXPECT_NE(top.summary.find("Restarting the runtime would not fix it"), std::string::npos) << top.summary;
  EXPECT_NE(top.summary.find("in ovl_sync_fs"), std::string::npos) << top.summary;
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(hung);
  EXPECT_LT(hung->confidence, top.confidence);
  EXPECT_NE(hung->summary.find("see shim_hung"), std::string::npos) << hung->summary;
  EXPECT_EQ(r.summary.find("restart the runtime"), std::string::npos) << "the advice is not a restart: " << r.summary;
}

TEST(CausalChain, SeveralStuckShimsAreAllNamed) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(12, "nfs_wait_bit_killable"));
  host::BlockedTask other = shim_in_d(3, "nfs_wait_bit_killable");
  other.pid = other.tid = 4343;
  other.sandbox_id = kOtherSandbox;
  b.s.host->processes.blocked.push_back(other);
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  b.s.pods_by_sandbox[kOtherSandbox] = api_pod();
  hang_lists(b, 40);
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kShimHung);
  EXPECT_EQ(r.causes.front().pods.size(), 2u);
  EXPECT_NE(r.causes.front().summary.find("shop/web-0"), std::string::npos) << r.causes.front().summary;
  EXPECT_NE(r.causes.front().summary.find("shop/api-1"), std::string::npos) << r.causes.front().summary;
  EXPECT_NE(r.causes.front().summary.find("and 1 other helper"), std::string::npos) << r.causes.front().summary;
}

// Stuck, but nothing hangs yet: a risk to act on, not the cause of a hang.
TEST(CausalChain, AStuckShimWithNothingHangingIsARisk) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(45, "ovl_sync_fs"));
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->form, Form::kNothingHangsYet);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_EQ(r.status, Status::kAtRisk);
  EXPECT_FALSE(find(r, CauseId::kRuntimeHung));
  EXPECT_NE(c->summary.find("no call hangs yet"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("would not free it"), std::string::npos) << c->summary;
}

// A hang with nothing stuck below: the runtime itself, and a restart is the remedy.
TEST(CausalChain, AHangWithNothingStuckBelowIsTheRuntimeItself) {
  Builder b;
  b.s.host = quiet_host();
  hang_lists(b, 40);
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
  EXPECT_FALSE(find(r, CauseId::kShimHung));
  EXPECT_NE(r.causes.front().summary.find("No pod's runtime helper is stuck in the kernel"), std::string::npos)
      << r.causes.front().summary;
  EXPECT_NE(r.causes.front().action.find("restart"), std::string::npos) << r.causes.front().action;
}

// The runtime's metrics page failing during the hang is evidence for it.
TEST(CausalChain, TheRuntimesMetricsPageFailingCountsForTheHang) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(0, "ovl_sync_fs"));
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  hang_lists(b, 30);
  b.s.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  b.s.runtime_metrics.reachable = false;
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& top = r.causes.front();
  EXPECT_EQ(top.id, CauseId::kShimHung);
  EXPECT_TRUE(has_evidence(top, "runtime_metrics_up"));
  EXPECT_NE(top.summary.find("metrics page does not answer either"), std::string::npos) << top.summary;
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(hung);
  EXPECT_TRUE(has_evidence(*hung, "runtime_metrics_up"));
  const double with_metrics_failing = top.confidence;
  b.s.runtime_metrics.reachable = true;
  EXPECT_LE(b.report().causes.front().confidence, with_metrics_failing) << "a failing page never lowers it";
}

// ---------------------------------------------------- defunct_processes

TEST(DefunctProcesses, AtTheThresholdNamesTheTopParentAndItsPod) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.zombies = 100;
  b.s.host->processes.zombie_parents.push_back({4242, "containerd-shim", 97, kSandbox, "", "", "helper"});
  b.s.zombie_parent_pods[4242] = web_pod();
  Report r = b.report();
  const Cause* c = find(r, CauseId::kDefunctProcesses);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("100 zombie"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("pid 4242"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
}

// The parent is a container's process, not a shim: its pod comes through
// its shim ancestry or its cgroup (the scanner's), resolved by the Node.
TEST(DefunctProcesses, AContainersProcessAsParentIsNamedWithItsPod) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.zombies = 200;
  host::ZombieParent z{2816, "zombies", 200, kSandbox, "", "", "ancestry"};
  b.s.host->processes.zombie_parents.push_back(z);
  b.s.zombie_parent_pods[2816] = web_pod();
  Report r = b.report();
  const Cause* c = find(r, CauseId::kDefunctProcesses);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("shop/web-0"), std::string::npos) << c->summary;
  ASSERT_EQ(r.host.processes.zombie_parents.size(), 1u);
  EXPECT_EQ(r.host.processes.zombie_parents[0].pod, "shop/web-0");
  EXPECT_EQ(r.host.processes.zombie_parents[0].found_by, "ancestry");
  EXPECT_EQ(r.host.processes.zombie_parents[0].pod_uid, "uid-web-0");
}

TEST(DefunctProcesses, JustUnderTheThresholdAndSteadyIsNone) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.zombies = 99;
  b.s.zombie_history = {99, 99, 98, 99};
  EXPECT_FALSE(find(b.report(), CauseId::kDefunctProcesses));
}

TEST(DefunctProcesses, GrowingAcrossTheScansIsNamedBelowTheThreshold) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.zombies = 40;
  b.s.zombie_history = {20, 26, 33, 40};
  EXPECT_TRUE(find(b.report(), CauseId::kDefunctProcesses));
  b.s.zombie_history = {21, 26, 33, 40};  // 19 more: just short of the growth threshold
  EXPECT_FALSE(find(b.report(), CauseId::kDefunctProcesses));
}

// ------------------------------------------------------- pid_exhaustion

TEST(PidExhaustion, TheRuntimesCgroupAt90PercentIsNamed) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->pid_limits[0].current = 3600;
  b.s.host->pid_limits[0].ratio = 0.9;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kPidExhaustion);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->details<PidExhaustionDetails>().limit_scope, "runtime");
  EXPECT_NE(c->summary.find("the runtime's pids cgroup"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("3600 of 4000"), std::string::npos) << c->summary;
}

TEST(PidExhaustion, JustUnder90PercentIsNone) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->pid_limits[0].current = 3599;
  b.s.host->pid_limits[0].ratio = 3599.0 / 4000;
  EXPECT_FALSE(find(b.report(), CauseId::kPidExhaustion));
}

TEST(PidExhaustion, TheNodesPidMaxIsNamedAsSuch) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->pid_limits[1].current = 32711;
  b.s.host->pid_limits[1].max = 32768;
  b.s.host->pid_limits[1].ratio = 32711.0 / 32768;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kPidExhaustion);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("pid_max"), std::string::npos) << c->summary;
  EXPECT_EQ(c->severity, Severity::kCritical);
}

// ---------------------------------------------------- runtime_disk_slow

TEST(RuntimeDiskSlow, NeverNamedAloneWhenCallsAreFast) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->runtime_disk.value->latency_ms = 400;
  b.s.host->runtime_disk.value->utilization = 1.0;
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeDiskSlow));
}

TEST(RuntimeDiskSlow, At100msPerIoBesideSlowStatusCallsIsNamedBehindThem) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->runtime_disk.value->latency_ms = 100;
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.8, 1.5);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeDiskSlow);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("vda1"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("behind pod_status_slow"), std::string::npos) << c->summary;
}

TEST(RuntimeDiskSlow, JustUnderBothThresholdsIsNone) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->runtime_disk.value->latency_ms = 99.9;
  b.s.host->runtime_disk.value->utilization = 0.899;
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.8, 1.5);
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeDiskSlow));
}

TEST(RuntimeDiskSlow, NinetyPercentBusyBesideSlowCallsIsNamed) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->runtime_disk.value->utilization = 0.9;
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.8, 1.5);
  EXPECT_TRUE(find(b.report(), CauseId::kRuntimeDiskSlow));
}

// ---------------------------------------------------------- no alarm

TEST(HostCauses, AQuietHostNamesNone) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.zombies = 20;
  b.s.zombie_history = {20, 20, 20};
  b.s.host->pid_limits[0].current = 2400;
  b.s.host->pid_limits[0].ratio = 0.6;
  Report r = b.report();
  EXPECT_TRUE(r.causes.empty()) << (r.causes.empty() ? "" : r.causes.front().summary);
  EXPECT_TRUE(r.host.reachable);
  EXPECT_EQ(r.host.processes.zombies, 20);
}

TEST(HostCauses, NoScanIsReportedAsNotRead) {
  Builder b;
  Report r = b.report();
  EXPECT_FALSE(r.host.reachable);
  EXPECT_TRUE(r.host.error.has_value());
}

// ---------------------------------------------------------------- advice
// Advice, not action: what each cause asks of an operator or a remediator.

TEST(Advice, AStuckPodsStatusCallAsksForNoNodeAction) {
  Builder b;
  hang_status_call(b, 14);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->advice, Advice::kFixPod);
}

TEST(Advice, AHungUnfilteredListAsksForTheRuntimesRestart) {
  Builder b;
  auto& lists = b.s.operations[op::kListContainers];
  lists.in_flight = 1;
  lists.oldest_in_flight_seconds = 12;
  lists.in_flight_calls.push_back({12, {}});
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->advice, Advice::kRestartRuntime);
}

TEST(Advice, AShimInDOnStorageAsksForTheStorageAndItsHungCallFollows) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(3, "nfs_wait_bit_killable"));
  b.s.pods_by_sandbox[kSandbox] = web_pod();
  hang_status_call(b, 14);
  Report r = b.report();
  const Cause* shim = find(r, CauseId::kShimHung);
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(shim);
  ASSERT_TRUE(hung);
  EXPECT_EQ(shim->advice, Advice::kFixStorage);
  EXPECT_EQ(hung->advice, Advice::kFixStorage);  // explained by the shim: its advice
}

TEST(Advice, AShimInDElsewhereInTheKernelAsksForAReboot) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->processes.blocked.push_back(shim_in_d(10, "zap_pid_ns_processes"));
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->advice, Advice::kReboot);
}

TEST(Advice, SlowStatusCallsBehindASlowDiskAskForTheStorage) {
  Builder b;
  b.s.host = quiet_host();
  b.s.host->runtime_disk.value->latency_ms = 100;
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.8, 1.5);
  Report r = b.report();
  const Cause* disk = find(r, CauseId::kRuntimeDiskSlow);
  const Cause* status = find(r, CauseId::kPodStatusSlow);
  ASSERT_TRUE(disk);
  ASSERT_TRUE(status);
  EXPECT_EQ(disk->advice, Advice::kFixStorage);
  EXPECT_EQ(status->advice, Advice::kFixStorage);
}

TEST(Advice, PodStatusSlowAloneIsThePodsAndAHealthyReportHasNoCause) {
  Builder b;
  EXPECT_TRUE(b.report().causes.empty());
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.8, 1.5);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kPodStatusSlow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->advice, Advice::kFixPod);
}

TEST(Advice, OneClassPerCauseFromItsOwnEvidence) {
  EXPECT_EQ(advise(make_finding(CauseId::kKubeletInternal, Severity::kCritical, 0.9)), Advice::kRestartKubelet);
  EXPECT_EQ(advise(make_finding(CauseId::kRuntimeUnavailable, Severity::kCritical, 0.9)), Advice::kRestartRuntime);
  Finding pids = make_finding(CauseId::kPidExhaustion, Severity::kCritical, 0.9);
  pids.details<PidExhaustionDetails>().limit_scope = "kubepods";
  EXPECT_EQ(advise(pids), Advice::kFixPod);
  pids.details<PidExhaustionDetails>().limit_scope = "node_pid_max";
  EXPECT_EQ(advise(pids), Advice::kReboot);
  for (CauseId id : kAllCauses) EXPECT_TRUE(advice_from_name(advice_name(advise(make_finding(id, Severity::kWarning, 0.5)))));
}

TEST(Advice, StorageWaitChannels) {
  for (const char* w : {"io_schedule", "folio_wait_bit_common", "nfs_wait_bit_killable", "rpc_wait_bit_killable",
                        "jbd2_log_wait_commit", "xfs_buf_lock", "blk_mq_get_tag", "wait_on_page_bit_common"})
    EXPECT_TRUE(storage_wait_channel(w)) << w;
  for (const char* w : {"", "0", "zap_pid_ns_processes", "futex_wait_queue", "do_wait", "pipe_read"})
    EXPECT_FALSE(storage_wait_channel(w)) << w;
}

}  // namespace
}  // namespace plegscope::testing
