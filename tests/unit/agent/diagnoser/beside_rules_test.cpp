// the causes at their thresholds: kubelet_internal (the kubelet's
// relist stopped while the agent's are fast), container_lock_stall (a
// mutating call stuck inside the runtime while the agent's calls hang) and
// cni_slow (network setup/teardown slow beside slow sandbox calls), and the
// cases that must name none of them.
#include "snapshot_builder.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope::testing {
namespace {

// A reachable kubelet (generic model, 1 s period) whose relist count last
// moved `flat` seconds ago and whose PLEG was last seen `age` seconds ago.
void kubelet(Builder& b, double flat, double age) {
  b.s.kubelet.endpoint = "https://10.0.0.5:10250";
  b.s.kubelet.tls_mode = "ca_file";
  b.s.kubelet.reachable = true;
  KubeletView& v = b.s.kubelet.view;
  v.samples = 12;
  v.sample_age_seconds = 0;
  v.relist_count = 5000;
  v.seconds_since_relist_advanced = flat;
  v.last_seen_age_seconds = age;
  v.relist_p99_seconds = 0.05;
  v.relists_per_minute = flat > 5 ? 0 : 60;
  v.version = KubeletVersion{1, 30, "v1.30.2"};
  v.model = pleg_model_for(*v.version, false);
}

// The stall threshold with the defaults: the 10 s hang threshold plus the kubelet's 1 s period.
constexpr double kStallAfter = 11;

TEST(KubeletInternal, HealthyKubeletNamesNothing) {
  Builder b;
  kubelet(b, 0.5, 0.8);
  EXPECT_TRUE(b.report().causes.empty());
}

TEST(KubeletInternal, FlatCountJustBelowAndAtTheThreshold) {
  Builder b;
  kubelet(b, kStallAfter - 0.1, 0.8);
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
  kubelet(b, kStallAfter, 0.8);
  const Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kKubeletInternal);
  EXPECT_TRUE(has_evidence(r.causes.front(), "kubelet_seconds_since_relist_count_advanced"));
  EXPECT_TRUE(has_evidence(r.causes.front(), "agent_relist_p99_seconds"));
  EXPECT_EQ(r.causes.front().severity, Severity::kWarning);  // the kubelet's own threshold is 3 min
}

TEST(KubeletInternal, LastSeenAgingPastTheKubeletsThresholdIsCritical) {
  Builder b;
  kubelet(b, 200, 200);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kKubeletInternal);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->severity, Severity::kCritical);
  EXPECT_TRUE(has_evidence(*c, "kubelet_last_seen_age_seconds"));
  EXPECT_NE(c->summary.find("the runtime answers"), std::string::npos) << c->summary;
  EXPECT_NE(c->remedy.find("systemctl kill --kill-who=main -s QUIT kubelet"), std::string::npos);
}

TEST(KubeletInternal, TimeSinceTheLastScrapeIsNotAFlatCount) {
  Builder b;
  kubelet(b, 30, 0.8);
  b.s.kubelet.view.sample_age_seconds = 20;  // advanced at the scrape before; not scraped since
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
  b.s.kubelet.view.sample_age_seconds = 30 - kStallAfter;  // the scrapes saw it flat for 11 s
  EXPECT_NE(find(b.report(), CauseId::kKubeletInternal), nullptr);
}

TEST(KubeletInternal, NotNamedWhenTheAgentsCallOnTheSameRuntimeHangs) {
  Builder b;
  kubelet(b, 200, 200);
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 150;
  const Report r = b.report();
  EXPECT_EQ(find(r, CauseId::kKubeletInternal), nullptr);
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
}

TEST(KubeletInternal, NotNamedWhenTheAgentsOwnRelistsStopped) {
  Builder b;
  kubelet(b, 200, 200);
  b.s.last_seen = kNow - seconds(60);
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
}

// A runtime killed and started again 5 s ago: the agent's relists failed
// until then, and the kubelet, last seen 23 s ago, has not relisted since
// (its connection's backoff). Only the 5 s the runtime has answered are the
// kubelet's own: not named. Once the runtime has answered past the stall
// threshold while the kubelet stays flat, it is.
TEST(KubeletInternal, OnlyTheStallWhileTheRuntimeAnsweredCounts) {
  Builder b;
  kubelet(b, 23, 23);
  const size_t last = b.s.timeline.size() - 1;
  b.s.timeline[last - 5].error_code = GrpcCode::kUnavailable;  // ended 5 s ago
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
  b.s.timeline[last - 5].error_code.reset();
  b.s.timeline[last - kStallAfter].error_code = GrpcCode::kUnavailable;  // ended 11 s ago
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kKubeletInternal);
  ASSERT_NE(c, nullptr) << r.summary;
  EXPECT_EQ(c->severity, Severity::kWarning);
}

// A runtime stopped for minutes and resumed 4 s ago: the agent's relist was
// held all that time. The kubelet's stall began with the runtime's.
TEST(KubeletInternal, NotNamedRightAfterAHeldRelistReturns) {
  Builder b;
  kubelet(b, 200, 200);
  RelistRecord held = relist(190, 190, 0);
  held.start = kNow - secs(194);
  b.s.timeline.insert(b.s.timeline.end() - 4, held);
  b.s.timeline.erase(b.s.timeline.begin() + 1, b.s.timeline.end() - 5);  // none ran while it was held
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);
}

TEST(KubeletInternal, NotNamedFromAnUnreachableKubelet) {
  Builder b;
  kubelet(b, 200, 200);
  b.s.kubelet.reachable = false;
  b.s.kubelet.outcome.error = ScrapeError::forbidden;
  EXPECT_TRUE(b.report().causes.empty());
}

TEST(KubeletInternal, LegacyEventedKubeletRelistsEveryFiveMinutes) {
  Builder b;
  kubelet(b, 200, 0.5);
  b.s.kubelet.view.version = KubeletVersion{1, 30, "v1.30.2"};
  b.s.kubelet.view.model = pleg_model_for(*b.s.kubelet.view.version, true);
  ASSERT_EQ(b.s.kubelet.view.model.relist_period_seconds, 300);
  EXPECT_EQ(find(b.report(), CauseId::kKubeletInternal), nullptr);  // 200 s flat is normal there
  b.s.kubelet.view.seconds_since_relist_advanced = 311;
  EXPECT_NE(find(b.report(), CauseId::kKubeletInternal), nullptr);
}

// The runtime's metrics page: `method` in flight for `seconds` with `completed` completions since.
void runtime_in_flight(Builder& b, const std::string& method, double seconds, double completed = 0) {
  b.s.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  b.s.runtime_metrics.reachable = true;
  b.s.runtime_metrics.kind = "containerd";
  b.s.runtime_metrics.in_flight.push_back({method, 1, seconds, completed});
}

void list_containers_hangs(Builder& b, double seconds) {
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = seconds;
}

TEST(ContainerLockStall, RanksAboveTheRuntimeHungItExplains) {
  Builder b;
  list_containers_hangs(b, 40);
  runtime_in_flight(b, "UpdateContainerResources", 45);
  const Report r = b.report();
  ASSERT_GE(r.causes.size(), 2u);
  EXPECT_EQ(r.causes[0].id, CauseId::kContainerLockStall);
  EXPECT_EQ(r.causes[1].id, CauseId::kRuntimeHung);
  EXPECT_NE(r.causes[0].summary.find("UpdateContainerResources"), std::string::npos) << r.causes[0].summary;
  EXPECT_NE(r.causes[1].summary.find("container_lock_stall"), std::string::npos) << r.causes[1].summary;
}

TEST(ContainerLockStall, InFlightJustBelowAndAtTheHangThreshold) {
  Builder b;
  list_containers_hangs(b, 40);
  runtime_in_flight(b, "StopContainer", 9.9);
  EXPECT_EQ(find(b.report(), CauseId::kContainerLockStall), nullptr);
  b.s.runtime_metrics.in_flight.front().seconds = 10;
  EXPECT_NE(find(b.report(), CauseId::kContainerLockStall), nullptr);
}

TEST(ContainerLockStall, NothingInFlightLeavesRuntimeHung) {
  Builder b;
  list_containers_hangs(b, 40);
  runtime_in_flight(b, "ListContainers", 40);  // only the agent's own call
  const Report r = b.report();
  EXPECT_EQ(find(r, CauseId::kContainerLockStall), nullptr);
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
}

TEST(ContainerLockStall, BusyTrafficIsNotAStuckCall) {
  Builder b;
  list_containers_hangs(b, 40);
  runtime_in_flight(b, "UpdateContainerResources", 60, /*completed=*/30);
  EXPECT_EQ(find(b.report(), CauseId::kContainerLockStall), nullptr);
}

TEST(ContainerLockStall, NotNamedWhileTheAgentsCallsAreFast) {
  Builder b;
  runtime_in_flight(b, "StopContainer", 120);
  EXPECT_EQ(find(b.report(), CauseId::kContainerLockStall), nullptr);
}

void network_p99(Builder& b, const std::string& op, double seconds) {
  b.s.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  b.s.runtime_metrics.reachable = true;
  b.s.runtime_metrics.network_p99_seconds[op] = seconds;
}

TEST(CniSlow, NetworkP99AtTheThresholdBesideSlowSandboxStatus) {
  Builder b;
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.6, 2.0);
  network_p99(b, "tear_down_pod", 9.9);
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
  network_p99(b, "tear_down_pod", 10);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kCniSlow);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(has_evidence(*c, "runtime_network_p99_seconds{tear_down_pod}"));
  EXPECT_NE(c->summary.find("tear_down_pod"), std::string::npos) << c->summary;
}

TEST(CniSlow, SlowNetworkAloneWithFastSandboxCallsIsNotNamed) {
  Builder b;
  network_p99(b, "set_up_pod", 30);
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
}

TEST(CniSlow, FromTheKubeletsSandboxLatency) {
  Builder b;
  kubelet(b, 0.5, 0.5);
  b.s.kubelet.sandbox_p99_seconds["run_podsandbox"] = 25;
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kCniSlow);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(has_evidence(*c, "kubelet_runtime_operations_p99_seconds{run_podsandbox}"));
}

TEST(CniSlow, TheKubeletsSlowSandboxCallsBesideTheRuntimesFastNetworkAreNotCni) {
  Builder b;
  kubelet(b, 0.5, 0.5);
  b.s.kubelet.sandbox_p99_seconds["run_podsandbox"] = 25;
  network_p99(b, "set_up_pod", 0.4);
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
}

TEST(CniSlow, SandboxCallInFlightPastTheThreshold) {
  Builder b;
  runtime_in_flight(b, "StopPodSandbox", 12);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kCniSlow);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->summary.find("StopPodSandbox"), std::string::npos) << c->summary;
}

// CRI-O: its network_setup_pod summary's p99, as the reader keeps it.
TEST(CniSlow, CrioNetworkSetupBesideSlowListPodSandbox) {
  Builder b;
  network_p99(b, "network_setup_pod", 14);
  b.s.runtime_metrics.kind = "crio";
  b.s.operations[op::kListPodSandbox] = op_stats(0.8, 1.5);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kCniSlow);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(has_evidence(*c, "runtime_network_p99_seconds{network_setup_pod}"));
  EXPECT_TRUE(has_evidence(*c, "p99_seconds{list_podsandbox}"));
  EXPECT_NE(c->summary.find("network_setup_pod takes 14s"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("ListPodSandbox at 1.5s"), std::string::npos) << c->summary;
}

TEST(CniSlow, SlowSandboxCallsBesideFastNetworkAreNotCni) {
  Builder b;
  network_p99(b, "set_up_pod", 0.3);
  network_p99(b, "tear_down_pod", 0.2);
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.9, 2.0);
  b.s.operations[op::kListPodSandbox] = op_stats(0.8, 1.5);
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
}

TEST(CniSlow, ExplainsTheSlowPodSandboxStatusItHolds) {
  Builder b;
  network_p99(b, "set_up_pod", 10);  // containerd's highest finite bucket: every setup took longer
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.9, 2.0);
  const Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kCniSlow);
  const Cause* status = find(r, CauseId::kPodStatusSlow);
  ASSERT_NE(status, nullptr);  // still named: PodSandboxStatus is slow
  EXPECT_LT(status->confidence, r.causes.front().confidence);
  EXPECT_NE(status->summary.find("network plugin holds the sandbox's lock"), std::string::npos) << status->summary;
}

}  // namespace
}  // namespace plegscope::testing
