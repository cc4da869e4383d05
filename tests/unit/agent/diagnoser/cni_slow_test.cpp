// cni_slow from the kubelet's sandbox latency, scrape by scrape: sandbox
// calls held by a stopped or hung runtime are the hang's, not the network
// plugin's (during the hang and after it); a rollout's many slow sandboxes
// rank below event_storm unless the runtime's own network figures are slow;
// a few slow sandboxes while the runtime answers its lists are still cni_slow,
// until sandbox calls end fast again.
#include "snapshot_builder.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope::testing {
namespace {

using Calls = KubeletEvidence::CallStep::Calls;

// A reachable, healthy kubelet whose last two minutes (as the reader keeps
// them) are 5 s scrapes of fast list calls (its relist, every second) and no
// sandbox call.
void kubelet_minute(Builder& b) {
  KubeletEvidence& k = b.s.kubelet;
  k.endpoint = "https://10.0.0.5:10250";
  k.tls_mode = "ca_file";
  k.reachable = true;
  k.view.samples = 13;
  k.view.relist_count = 5000;
  k.view.seconds_since_relist_advanced = 0.5;
  k.view.last_seen_age_seconds = 0.5;
  k.view.relist_p99_seconds = 0.05;
  k.view.relists_per_minute = 60;
  k.view.version = KubeletVersion{1, 34, "v1.34.4"};
  k.view.model = pleg_model_for(*k.view.version, false);
  k.call_steps.clear();
  for (int i = 24; i > 0; --i) {
    KubeletEvidence::CallStep step;
    step.from = kNow - seconds(5 * i);
    step.to = kNow - seconds(5 * (i - 1));
    step.calls["list_podsandbox"] = Calls{5, 0.01};
    step.calls["list_containers"] = Calls{5, 0.01};
    k.call_steps.push_back(step);
  }
}

// The scrape that ended `ago` seconds ago (a multiple of 5, under 120).
KubeletEvidence::CallStep& step_ending(Builder& b, int ago) {
  return b.s.kubelet.call_steps[b.s.kubelet.call_steps.size() - 1 - static_cast<size_t>(ago / 5)];
}

// The minute's figure as the reader keeps it beside its steps.
void sandbox_p99(Builder& b, const std::string& op, double seconds) { b.s.kubelet.sandbox_p99_seconds[op] = seconds; }

// One more of the agent's unfiltered `op` calls, ended `ago` seconds ago.
void agent_call(Builder& b, const char* op, double seconds, double ago, GrpcCode code = GrpcCode::kOk) {
  auto& recent = b.s.operations[op].recent;
  recent.push_back({kNow - secs(ago), seconds, code, {}});
  std::sort(recent.begin(), recent.end(), [](const CallSample& x, const CallSample& y) { return x.end < y.end; });
}

// The agent's unfiltered ListContainers held `seconds` until `ago` seconds ago.
void agent_list_held(Builder& b, double seconds, double ago) { agent_call(b, op::kListContainers, seconds, ago); }

// The agent's unfiltered ListContainers in flight for `seconds` now.
void agent_list_in_flight(Builder& b, double seconds) { b.call_in_flight(op::kListContainers, seconds); }

void network_p99(Builder& b, const std::string& op, double seconds) {
  b.s.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  b.s.runtime_metrics.reachable = true;
  b.s.runtime_metrics.kind = "containerd";
  b.s.runtime_metrics.network_p99_seconds[op] = seconds;
}

size_t rank_of(const Report& r, CauseId id) {
  for (size_t i = 0; i < r.causes.size(); ++i)
    if (r.causes[i].id == id) return i;
  return r.causes.size();
}

// Two slow RunPodSandbox calls while the runtime answered: the plugin's.
TEST(CniSlowWindow, FewSlowSandboxesWhileTheRuntimeAnswersAreCni) {
  Builder b;
  kubelet_minute(b);
  step_ending(b, 10).calls["run_podsandbox"] = Calls{2, 25};
  sandbox_p99(b, "run_podsandbox", 25);
  const Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kCniSlow);
  const Cause& c = r.causes.front();
  EXPECT_TRUE(has_evidence(c, "kubelet_runtime_operations_p99_seconds{run_podsandbox}"));
  EXPECT_TRUE(has_evidence(c, "kubelet_runtime_operations_p99_seconds{list_"));  // the runtime answered
  EXPECT_TRUE(has_evidence(c, "kubelet_sandbox_calls_at_once{run_podsandbox}"));
  EXPECT_NE(c.summary.find("run_podsandbox takes 25s"), std::string::npos) << c.summary;
}

// (a) The runtime stopped 50 s ago and is still stopped: the agent's list
// hangs. A sandbox call that hit the kubelet's deadline meanwhile is the
// hang's: runtime_hung first, cni_slow not named.
TEST(CniSlowWindow, SandboxCallsEndingDuringARuntimeHangAreTheHangs) {
  Builder b;
  kubelet_minute(b);
  agent_list_in_flight(b, 50);
  step_ending(b, 0).calls["run_podsandbox"] = Calls{1, 120};
  sandbox_p99(b, "run_podsandbox", 120);
  const Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
  EXPECT_EQ(find(r, CauseId::kCniSlow), nullptr);
  EXPECT_LT(rank_of(r, CauseId::kRuntimeHung), rank_of(r, CauseId::kCniSlow));
}

// (a) After the hang: the runtime returned 10 s ago and the sandbox calls it
// held ended then, as slow as the hang was long. No cni_slow for the rest of
// the kubelet's minute; the same figure without the hang is cni_slow.
TEST(CniSlowWindow, SandboxCallsHeldByAStoppedRuntimeDoNotOutliveIt) {
  Builder b;
  kubelet_minute(b);
  step_ending(b, 5).calls["run_podsandbox"] = Calls{2, 117};
  sandbox_p99(b, "run_podsandbox", 117);
  Builder control = b;
  EXPECT_NE(find(control.report(), CauseId::kCniSlow), nullptr);  // what the hang must take away
  agent_list_held(b, 45, 10);  // stopped from 55 s ago until 10 s ago
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
}

// (a) A deadline or UNAVAILABLE on the agent's lists marks the runtime's
// outage as well as a held call does.
TEST(CniSlowWindow, SandboxCallsOverlappingFailedListsAreNotCni) {
  Builder b;
  kubelet_minute(b);
  step_ending(b, 5).calls["stop_podsandbox"] = Calls{1, 30};
  sandbox_p99(b, "stop_podsandbox", 30);
  agent_call(b, op::kListPodSandbox, 0.001, 20, GrpcCode::kUnavailable);
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
}

// (a) The agent saw no stall (it started after it), but the kubelet's own
// list calls were held as long in the same scrape: the runtime, not CNI.
TEST(CniSlowWindow, TheKubeletsListsHeldBesideTheSandboxCallsAreTheRuntimes) {
  Builder b;
  kubelet_minute(b);
  KubeletEvidence::CallStep& step = step_ending(b, 5);
  step.calls["run_podsandbox"] = Calls{1, 60};
  step.calls["list_podsandbox"] = Calls{1, 55};
  sandbox_p99(b, "run_podsandbox", 60);
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
}

// (a) A RunPodSandbox in flight inside the runtime while its lists hang is
// held with them: the hang's (container_lock_stall's), not the plugin's.
TEST(CniSlowWindow, ASandboxCallInFlightDuringAListHangIsNotCni) {
  Builder b;
  agent_list_in_flight(b, 40);
  b.s.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  b.s.runtime_metrics.reachable = true;
  b.s.runtime_metrics.in_flight.push_back({"RunPodSandbox", 1, 45, 0});
  const Report r = b.report();
  EXPECT_EQ(find(r, CauseId::kCniSlow), nullptr);
  ASSERT_FALSE(r.causes.empty());
  EXPECT_NE(r.causes.front().id, CauseId::kCniSlow);
}

// A rollout of 24 pods: every relist finds a dozen changed pods, the
// kubelet ran 24 sandboxes in the minute, some slow on a busy node.
Builder rollout() {
  Builder b;
  b.relists(20, storm_relist(12));
  kubelet_minute(b);
  for (int ago : {30, 25, 20, 15}) step_ending(b, ago).calls["run_podsandbox"] = Calls{6, 18.6};
  sandbox_p99(b, "run_podsandbox", 18.6);
  return b;
}

// (b) The rollout's slow sandboxes are event_storm's, not cni_slow's.
TEST(CniSlowWindow, DuringAMassRolloutEventStormRanksAboveCni) {
  const Report r = rollout().report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kEventStorm);
  EXPECT_EQ(find(r, CauseId::kCniSlow), nullptr);
}

// (b) One sandbox fewer than the rollout threshold is few enough to be the plugin's.
TEST(CniSlowWindow, RolloutThreshold) {
  Builder b;
  kubelet_minute(b);
  step_ending(b, 20).calls["run_podsandbox"] = Calls{5, 18.6};
  step_ending(b, 15).calls["run_podsandbox"] = Calls{4, 18.6};
  sandbox_p99(b, "run_podsandbox", 18.6);
  EXPECT_NE(find(b.report(), CauseId::kCniSlow), nullptr);
  step_ending(b, 15).calls["run_podsandbox"] = Calls{5, 18.6};
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
}

// (b) The rollout's last, slowest sandboxes: those that ended before them
// left the kubelet's minute but not the scrapes kept, and still count.
TEST(CniSlowWindow, TheRolloutsLastSlowSandboxesStayTheRollouts) {
  Builder b;
  kubelet_minute(b);
  for (int ago : {75, 70, 65}) step_ending(b, ago).calls["run_podsandbox"] = Calls{6, 3};
  step_ending(b, 55).calls["run_podsandbox"] = Calls{2, 18.6};
  sandbox_p99(b, "run_podsandbox", 18.6);
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
  // The same two slow ones alone are the plugin's.
  for (int ago : {75, 70, 65}) step_ending(b, ago).calls.erase("run_podsandbox");
  EXPECT_NE(find(b.report(), CauseId::kCniSlow), nullptr);
}

// (b) The same rollout while the runtime's own network figures are slow:
// the plugin's time is measured, so cni_slow is named, on that figure, and
// the rollout's sandbox count stays in its evidence.
TEST(CniSlowWindow, DuringARolloutTheNetworkPluginsOwnSlowTimeIsStillCni) {
  Builder b = rollout();
  network_p99(b, "set_up_pod", 15);
  const Report r = b.report();
  const Cause* c = find(r, CauseId::kCniSlow);
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(has_evidence(*c, "runtime_network_p99_seconds{set_up_pod}"));
  EXPECT_TRUE(has_evidence(*c, "kubelet_sandbox_calls_at_once{run_podsandbox}"));
  EXPECT_NE(c->summary.find("set_up_pod takes 15s"), std::string::npos) << c->summary;
}

// The window: sandbox calls that ended fast after the slow ones say the
// plugin answers again; the cause ends with its evidence, not a minute on.
TEST(CniSlowWindow, FastSandboxCallsSinceEndIt) {
  Builder b;
  kubelet_minute(b);
  step_ending(b, 30).calls["run_podsandbox"] = Calls{2, 25};
  sandbox_p99(b, "run_podsandbox", 25);
  EXPECT_NE(find(b.report(), CauseId::kCniSlow), nullptr);
  step_ending(b, 10).calls["run_podsandbox"] = Calls{1, 0.4};
  EXPECT_EQ(find(b.report(), CauseId::kCniSlow), nullptr);
  // Slow again after that: named again.
  step_ending(b, 5).calls["run_podsandbox"] = Calls{1, 22};
  EXPECT_NE(find(b.report(), CauseId::kCniSlow), nullptr);
}

}  // namespace
}  // namespace plegscope::testing
