// The runtime's Status, read with the kubelet's rule: a fake runtime answers
// (or fails, or holds the call while the test steps the fake clock), and the
// evidence says what the kubelet says about it. No sleeps, no threads.
#include "cri/runtime_status_probe.h"

#include <gtest/gtest.h>

#include "fake_clock.h"
#include "fake_runtime.h"
#include "source_tree.h"

namespace plegscope {
namespace {

using std::chrono::seconds;

void set_conditions(testing::FakeRuntime& rt, bool runtime_ready, bool network_ready,
                    const std::string& network_reason = "", const std::string& network_message = "") {
  rt.status_answer.Clear();
  auto* r = rt.status_answer.mutable_status()->add_conditions();
  r->set_type("RuntimeReady");
  r->set_status(runtime_ready);
  if (!runtime_ready) {
    r->set_reason("RuntimeNotReady");
    r->set_message("shim cannot start");
  }
  auto* n = rt.status_answer.mutable_status()->add_conditions();
  n->set_type("NetworkReady");
  n->set_status(network_ready);
  n->set_reason(network_reason);
  n->set_message(network_message);
}

class RuntimeStatusProbeTest : public ::testing::Test {
 protected:
  RuntimeStatusProbeTest() : probe(runtime, clock, RuntimeStatusOptions{}) { set_conditions(runtime, true, true); }
  testing::FakeClock clock;
  testing::FakeRuntime runtime;
  RuntimeStatusProbe probe;
};

TEST_F(RuntimeStatusProbeTest, BeforeTheFirstCallNothingIsSaid) {
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_TRUE(e.enabled);
  EXPECT_FALSE(e.started);
  EXPECT_TRUE(e.sync_error.empty());
  EXPECT_FALSE(e.runtime_down);
}

TEST_F(RuntimeStatusProbeTest, AGoodAnswerIsASync) {
  probe.poll();
  clock.step(seconds(3));
  RuntimeStatusEvidence e = probe.evidence();
  ASSERT_TRUE(e.last_success);
  EXPECT_DOUBLE_EQ(e.seconds_since_success, 3);
  EXPECT_TRUE(e.healthy());
  EXPECT_FALSE(e.in_flight_seconds);
  EXPECT_EQ(e.calls, 1);
  EXPECT_EQ(runtime.calls[op::kStatus], 1);
  EXPECT_FALSE(e.seconds_until_down);
  // The next call, 5 s after, in flight: a healthy sync up to a period old
  // is not late.
  runtime.on_call = [&](const std::string&) {
    clock.step(std::chrono::milliseconds(400));
    EXPECT_FALSE(probe.evidence().seconds_until_down);
  };
  clock.step(seconds(2));
  probe.poll();
}

// The kubelet's runtimeState: the sync 30 s old is "down" (at 30 s exactly:
// its check is !last.Add(30s).After(now)).
TEST_F(RuntimeStatusProbeTest, ThirtySecondsWithoutASyncIsDown) {
  probe.poll();
  runtime.fail[op::kStatus] = GrpcCode::kDeadlineExceeded;
  clock.step(seconds(10));
  probe.poll();
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_FALSE(e.runtime_down);
  ASSERT_TRUE(e.seconds_until_down);
  EXPECT_DOUBLE_EQ(*e.seconds_until_down, 20);
  EXPECT_EQ(e.consecutive_deadlines, 1);
  clock.step(seconds(19));
  EXPECT_FALSE(probe.evidence().runtime_down);
  clock.step(seconds(1));
  e = probe.evidence();
  EXPECT_TRUE(e.runtime_down);
  EXPECT_EQ(e.sync_error, "container runtime is down");
  EXPECT_FALSE(e.healthy());
  EXPECT_EQ(e.last_code, GrpcCode::kDeadlineExceeded);
}

// A call that does not return: its age is measured while it hangs, and the
// 30 s rule fires during the call, before any deadline.
TEST_F(RuntimeStatusProbeTest, AHungCallIsDownWhileStillInFlight) {
  probe.poll();
  clock.step(seconds(5));
  RuntimeStatusEvidence during;
  runtime.on_call = [&](const std::string&) {
    clock.step(seconds(31));
    during = probe.evidence();
  };
  probe.poll();
  ASSERT_TRUE(during.in_flight_seconds);
  EXPECT_DOUBLE_EQ(*during.in_flight_seconds, 31);
  EXPECT_TRUE(during.runtime_down);
  EXPECT_DOUBLE_EQ(during.seconds_since_success, 36);
  // It answered in the end: a sync again.
  RuntimeStatusEvidence after = probe.evidence();
  EXPECT_FALSE(after.in_flight_seconds);
  EXPECT_TRUE(after.healthy());
}

TEST_F(RuntimeStatusProbeTest, NoSyncYetIsNotCompletedThenDown) {
  runtime.fail[op::kStatus] = GrpcCode::kUnavailable;
  probe.poll();
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_TRUE(e.not_completed_yet);
  EXPECT_EQ(e.sync_error, "container runtime status check may not have completed yet");
  clock.step(seconds(30));
  e = probe.evidence();
  EXPECT_TRUE(e.runtime_down);
  EXPECT_FALSE(e.not_completed_yet);
}

// updateRuntimeUp: RuntimeReady false is an error of its own and no sync,
// so 30 s later the runtime is also "down".
TEST_F(RuntimeStatusProbeTest, RuntimeNotReadyStopsTheSync) {
  probe.poll();
  set_conditions(runtime, false, true);
  clock.step(seconds(5));
  probe.poll();
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_EQ(e.runtime_not_ready,
            "container runtime not ready: RuntimeReady=false reason:RuntimeNotReady message:shim cannot start");
  EXPECT_FALSE(e.healthy());
  EXPECT_TRUE(e.sync_error.empty());
  clock.step(seconds(25));
  probe.poll();
  e = probe.evidence();
  EXPECT_TRUE(e.runtime_down);
  EXPECT_EQ(kubelet_runtime_errors(e, "pleg was last seen active 3m0s ago; threshold is 3m0s"),
            (std::vector<std::string>{
                "container runtime is down",
                "PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s",
                "container runtime not ready: RuntimeReady=false reason:RuntimeNotReady message:shim cannot start"}));
}

// NetworkReady false is the network's error; the runtime still syncs.
TEST_F(RuntimeStatusProbeTest, NetworkNotReadyKeepsTheSync) {
  set_conditions(runtime, true, false, "NetworkPluginNotReady",
                 "Network plugin returns error: cni plugin not initialized");
  probe.poll();
  clock.step(seconds(40));
  probe.poll();
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_TRUE(e.healthy());
  EXPECT_EQ(e.network_not_ready,
            "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
            "message:Network plugin returns error: cni plugin not initialized");
  ASSERT_TRUE(e.network_ready);
  EXPECT_EQ(e.network_ready->reason, "NetworkPluginNotReady");
  EXPECT_EQ(kubelet_runtime_errors(e, ""), std::vector<std::string>{e.network_not_ready});
}

// A configured plugin's STATUS error: the runtime's message has the
// plugin's words only, the configuration the runtime loaded names it.
TEST(RuntimeStatusProbeCni, APluginsStatusErrorIsNamedFromTheConfiguration) {
  testing::FakeClock clock;
  testing::FakeRuntime runtime;
  RuntimeStatusOptions options;
  options.cni_conf_dir = source_tree::fixtures() + "/cni/net.d";
  RuntimeStatusProbe probe(runtime, clock, options);
  set_conditions(runtime, true, true);
  probe.poll();
  EXPECT_FALSE(probe.evidence().cni) << "the directory is read only while the network is not ready";

  set_conditions(runtime, true, false, "NetworkPluginNotReady",
                 "Network plugin returns error: calico: datastore not ready");
  clock.step(seconds(5));
  probe.poll();
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_EQ(e.network_message, NetworkMessageKind::kPluginError);
  EXPECT_EQ(e.cni_plugin_error, "calico: datastore not ready");
  ASSERT_TRUE(e.cni && e.cni->network);
  EXPECT_EQ(e.cni->network->file, "10-calico.conflist");
  EXPECT_EQ(e.cni_plugin, "calico");
  EXPECT_TRUE(e.healthy()) << "the network's error is not the runtime's sync";

  // CRI-O's missing configuration: no plugin to name.
  set_conditions(runtime, true, false, "NetworkPluginNotReady",
                 "Network plugin returns error: no CNI configuration file in /etc/cni/net.d/. Has your network "
                 "provider started?");
  clock.step(seconds(5));
  probe.poll();
  e = probe.evidence();
  EXPECT_EQ(e.network_message, NetworkMessageKind::kNoConfig);
  EXPECT_EQ(e.cni_plugin, "");

  set_conditions(runtime, true, true);
  clock.step(seconds(5));
  probe.poll();
  e = probe.evidence();
  EXPECT_FALSE(e.cni);
  EXPECT_EQ(e.network_message, NetworkMessageKind::kUnknown);
}

// A runtime that gives no condition at all: the kubelet prints <nil>.
TEST_F(RuntimeStatusProbeTest, MissingConditionsAreNotReady) {
  runtime.status_answer.Clear();
  probe.poll();
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_EQ(e.runtime_not_ready, "container runtime not ready: <nil>");
  EXPECT_EQ(e.network_not_ready, "container runtime network not ready: <nil>");
  EXPECT_FALSE(e.last_success);
}

TEST_F(RuntimeStatusProbeTest, FlappingIsCounted) {
  for (int i = 0; i < 6; ++i) {
    set_conditions(runtime, true, i % 2 == 0);
    probe.poll();
    clock.step(seconds(5));
  }
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_EQ(e.recent_calls, 6);
  EXPECT_EQ(e.transitions_recent, 5);
}

// The runtime killed and started again: its calls failed, then it answers
// ready as before. No readiness changed (chaos campaign, runtime_killed:
// runtime_network_not_ready "flapping" was named for a minute after).
TEST_F(RuntimeStatusProbeTest, FailedCallsAreNoReadinessChange) {
  set_conditions(runtime, true, true);
  probe.poll();
  clock.step(seconds(5));
  runtime.fail[op::kStatus] = GrpcCode::kUnavailable;
  for (int i = 0; i < 3; ++i) {
    probe.poll();
    clock.step(seconds(5));
  }
  runtime.fail.erase(op::kStatus);
  probe.poll();
  RuntimeStatusEvidence e = probe.evidence();
  EXPECT_EQ(e.recent_calls, 2);
  EXPECT_EQ(e.transitions_recent, 0);
}

TEST_F(RuntimeStatusProbeTest, MetricsFollowTheRule) {
  auto value = [&](const std::string& name, const std::string& condition = "") {
    for (const auto& f : probe.Collect())
      if (f.name == name)
        for (const auto& m : f.metric)
          if (condition.empty() || (!m.label.empty() && m.label[0].value == condition)) return m.gauge.value;
    return -1.0;
  };
  // A runtime that never answered says nothing of its conditions: no 0
  // that would read as "not ready" (an agent that cannot open the socket).
  runtime.fail[op::kStatus] = GrpcCode::kUnavailable;
  probe.poll();
  EXPECT_EQ(value("pleg_runtime_status_healthy"), 0);
  EXPECT_EQ(value("pleg_runtime_condition", "RuntimeReady"), -1);
  EXPECT_EQ(value("pleg_runtime_condition", "NetworkReady"), -1);
  runtime.fail.erase(op::kStatus);
  clock.step(seconds(5));
  set_conditions(runtime, true, false);
  probe.poll();
  EXPECT_EQ(value("pleg_runtime_status_healthy"), 1);
  EXPECT_EQ(value("pleg_runtime_condition", "RuntimeReady"), 1);
  EXPECT_EQ(value("pleg_runtime_condition", "NetworkReady"), 0);
  runtime.fail[op::kStatus] = GrpcCode::kDeadlineExceeded;
  clock.step(seconds(30));
  probe.poll();
  EXPECT_EQ(value("pleg_runtime_status_healthy"), 0);
  EXPECT_EQ(value("pleg_runtime_status_seconds_since_success"), 30);
  // The last answer's conditions stay once the runtime stops answering.
  EXPECT_EQ(value("pleg_runtime_condition", "RuntimeReady"), 1);
}

TEST_F(RuntimeStatusProbeTest, TheNextCallWaitsFiveSecondsAfterTheLastReturned) {
  probe.poll();
  clock.step(seconds(3));
  probe.poll();
  EXPECT_EQ(runtime.calls[op::kStatus], 1);
  clock.step(seconds(2));
  probe.poll();
  EXPECT_EQ(runtime.calls[op::kStatus], 2);
}

// A client whose Status stays pending until the test lets it answer, as the
// gRPC client's completion queue: the probe looks and never waits.
class HeldRuntime : public testing::FakeRuntime {
 public:
  void begin_status() override { begun++; }
  std::optional<CallResult<cri::StatusResponse>> status_result(Duration) override {
    if (!answer) return std::nullopt;
    auto out = std::move(answer);
    answer.reset();
    return out;
  }
  int begun = 0;
  std::optional<CallResult<cri::StatusResponse>> answer;
};

TEST(RuntimeStatusProbePending, APendingCallIsLookedForNotWaitedFor) {
  testing::FakeClock clock;
  HeldRuntime runtime;
  RuntimeStatusProbe probe(runtime, clock, RuntimeStatusOptions{});
  probe.poll();
  EXPECT_EQ(runtime.begun, 1);
  clock.step(seconds(40));
  probe.poll();  // still pending: no second call
  EXPECT_EQ(runtime.begun, 1);
  RuntimeStatusEvidence e = probe.evidence();
  ASSERT_TRUE(e.in_flight_seconds);
  EXPECT_DOUBLE_EQ(*e.in_flight_seconds, 40);
  EXPECT_TRUE(e.runtime_down) << "never synced, 40 s after the probe began";
  runtime.answer = CallResult<cri::StatusResponse>{{GrpcCode::kDeadlineExceeded, "deadline"}, {}};
  probe.poll();
  e = probe.evidence();
  EXPECT_FALSE(e.in_flight_seconds);
  EXPECT_EQ(e.consecutive_deadlines, 1);
  EXPECT_EQ(runtime.begun, 1) << "the next call waits 5 s after this one returned";
}

TEST(RuntimeStatusProbeOff, DisabledExportsNothing) {
  testing::FakeClock clock;
  testing::FakeRuntime runtime;
  RuntimeStatusOptions o;
  o.enabled = false;
  RuntimeStatusProbe probe(runtime, clock, o);
  EXPECT_FALSE(probe.enabled());
  EXPECT_TRUE(probe.Collect().empty());
  EXPECT_FALSE(probe.evidence().enabled);
}

}  // namespace
}  // namespace plegscope
