// The runtime's Status, the kubelet's other path to NotReady: its three
// causes, the report's section saying which path the node is on and when,
// and one hang named one way across its retries (lists and Status alike).
#include "snapshot_builder.h"

namespace plegscope::testing {
namespace {

// The probe's evidence as it reads `since` seconds after the last sync.
RuntimeStatusEvidence status_evidence(double since, std::optional<double> in_flight, int deadlines = 0) {
  RuntimeStatusEvidence e;
  e.enabled = true;
  e.period_seconds = 5;
  e.down_threshold_seconds = 30;
  e.deadline_seconds = 120;
  e.started = kNow - seconds(600);
  e.last_success = kNow - secs(since);
  e.last_answer = e.last_success;
  e.in_flight_seconds = in_flight;
  e.seconds_since_success = since;
  e.answered = true;
  e.runtime_ready = RuntimeConditionValue{"RuntimeReady", true, "", ""};
  e.network_ready = RuntimeConditionValue{"NetworkReady", true, "", ""};
  e.consecutive_failures = deadlines;
  e.consecutive_deadlines = deadlines;
  if (deadlines > 0) {
    e.last_code = GrpcCode::kDeadlineExceeded;
    e.last_error = "context deadline exceeded";
  }
  if (since >= 30) {
    e.runtime_down = true;
    e.sync_error = "container runtime is down";
  } else if (deadlines > 0 || in_flight.value_or(0) >= 5) {
    e.seconds_until_down = 30 - since;
  }
  return e;
}

// Status in flight for `in_flight` seconds, the lists answering in 1-2 ms.
Builder status_hung(double since, double in_flight) {
  Builder b;
  b.s.runtime_status = status_evidence(since, in_flight);
  b.call_in_flight(op::kStatus, in_flight);
  return b;
}

TEST(RuntimeStatusHung, StatusHangWithFastListsIsTheRuntimeDownForTheKubelet) {
  Report r = status_hung(35, 35).report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.id, CauseId::kRuntimeStatusHung);
  EXPECT_EQ(c.severity, Severity::kCritical);
  EXPECT_NE(c.summary.find("The runtime is down for the kubelet"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("its container lists answer"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("the kubelet now says \"container runtime is down\""), std::string::npos) << c.summary;
  EXPECT_TRUE(has_evidence(c, "oldest_in_flight_seconds{status}"));
  EXPECT_EQ(c.advice, Advice::kRestartRuntime);
  // Status is not the PLEG's call: no runtime_hung for it.
  EXPECT_FALSE(find(r, CauseId::kRuntimeHung));
  EXPECT_EQ(r.status, Status::kAtRisk);
  EXPECT_EQ(r.summary.rfind("PLEG is healthy, but the kubelet's check of the runtime's Status is not. The runtime is "
                            "down for the kubelet",
                            0),
            0u)
      << r.summary;
  EXPECT_EQ(r.runtime_status.not_ready_path, "runtime_status");
  EXPECT_EQ(r.runtime_status.not_ready_in_seconds, 0);
  ASSERT_FALSE(r.runtime_status.kubelet_errors.empty());
  EXPECT_EQ(r.runtime_status.kubelet_errors.front(), "container runtime is down");
}

// containerd has run what it started for as long as the Status call waits:
// the CNI plugin whose STATUS does not return, named with its pid; a child
// younger than the call, a zombie-free image unpacker, or none, names nothing.
host::HostEvidence runtime_children(std::vector<std::pair<std::string, double>> children) {
  host::HostEvidence h;
  h.processes.total = 200;
  int64_t pid = 4100;
  for (const auto& [comm, age] : children) h.processes.daemon_children.push_back({pid++, comm, "containerd", 'S', age});
  return h;
}

TEST(RuntimeStatusHung, ThePluginTheCallWaitsOnIsNamed) {
  Builder b = status_hung(35, 35);
  b.s.host = runtime_children({{"unpigz", 300}, {"status-plugin", 35.5}, {"status-plugin", 30}});
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.id, CauseId::kRuntimeStatusHung);
  EXPECT_NE(c.summary.find("containerd started `status-plugin` (pid 4101) 36s ago, before this call, and it has "
                           "not returned"),
            std::string::npos)
      << c.summary;
  EXPECT_TRUE(has_evidence(c, "runtime_child_running_seconds{status-plugin}"));
  EXPECT_NE(c.action.find("end `status-plugin` (pid 4101)"), std::string::npos) << c.action;
  const Culprit k = culprit_of(c);
  EXPECT_EQ(k.pid, 4101);
  EXPECT_EQ(k.comm, "status-plugin");

  // A scan taken 4 s before the report: the plugin's age then, 31.5 s, is
  // 35.5 s now, and it still began before the call.
  Builder stale = status_hung(35, 35);
  stale.s.host = runtime_children({{"status-plugin", 31.5}});
  stale.s.host_scanned_at = stale.s.now - secs(4);
  const Report sr = stale.report();
  ASSERT_FALSE(sr.causes.empty());
  EXPECT_NE(sr.causes.front().summary.find("`status-plugin` (pid 4100) 36s ago"), std::string::npos)
      << sr.causes.front().summary;

  for (auto children : {std::vector<std::pair<std::string, double>>{{"status-plugin", 20}},
                        std::vector<std::pair<std::string, double>>{{"unpigz", 300}},
                        std::vector<std::pair<std::string, double>>{}}) {
    Builder none = status_hung(35, 35);
    none.s.host = runtime_children(children);
    const Report nr = none.report();
    ASSERT_FALSE(nr.causes.empty());
    const Cause& n = nr.causes.front();
    EXPECT_EQ(n.id, CauseId::kRuntimeStatusHung);
    EXPECT_EQ(n.summary.find("before this call"), std::string::npos) << n.summary;
    EXPECT_FALSE(has_evidence(n, "runtime_child_running_seconds"));
  }
}

TEST(RuntimeStatusHung, BeforeThirtySecondsItSaysWhen) {
  Report r = status_hung(18, 13).report();
  const Cause* c = find(r, CauseId::kRuntimeStatusHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_NE(c->summary.find("The runtime is about to be down for the kubelet"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("(node NotReady) in 12s"), std::string::npos) << c->summary;
  EXPECT_EQ(r.runtime_status.not_ready_path, "runtime_status");
  EXPECT_EQ(r.runtime_status.not_ready_in_seconds, 12);
}

// The kubelet's loop calls 5 s after the last answer: a sync 5.4 s old with
// the next call 0.4 s in flight is a healthy runtime.
TEST(RuntimeStatusHung, AHealthySyncIsUpToAPeriodOld) {
  Report r = status_hung(5.4, 0.4).report();
  EXPECT_TRUE(r.causes.empty()) << r.summary;
  EXPECT_EQ(r.runtime_status.not_ready_path, "none");
  EXPECT_FALSE(r.runtime_status.not_ready_in_seconds);
}

// One failed call right after a sync is not yet a Status that has stopped.
TEST(RuntimeStatusHung, OneFastFailureIsNotYetAHang) {
  Builder b;
  b.s.runtime_status = status_evidence(5.2, std::nullopt, 1);
  b.s.runtime_status.last_code = GrpcCode::kUnknown;
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeStatusHung));
  // A period beyond the hang threshold (10 s) without a sync: named.
  b.s.runtime_status = status_evidence(16, std::nullopt, 3);
  b.s.runtime_status.last_code = GrpcCode::kUnknown;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeStatusHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("(3 calls in a row failed)"), std::string::npos) << c->summary;
}

// Past a short hang threshold (3 s) and short of a period, the call is
// already late: the report says when the kubelet's rule fires.
TEST(RuntimeStatusHung, ACallPastTheHangThresholdIsLateBeforeAPeriod) {
  DiagnoserThresholds t;
  t.hang_seconds = 3;
  Report r = status_hung(8.9, 3.9).report(t);
  ASSERT_TRUE(find(r, CauseId::kRuntimeStatusHung));
  EXPECT_EQ(r.runtime_status.not_ready_path, "runtime_status");
  ASSERT_TRUE(r.runtime_status.not_ready_in_seconds);
  EXPECT_NEAR(*r.runtime_status.not_ready_in_seconds, 21.1, 1e-9);
}

TEST(RuntimeStatusHung, UnderTheHangThresholdIsNothing) {
  EXPECT_FALSE(find(status_hung(7, 2).report(), CauseId::kRuntimeStatusHung));
}

// The probe's own retries: between two calls nothing is in flight past the
// threshold, the calls end at their deadline, the name stays.
TEST(RuntimeStatusHung, AcrossTheProbesRetriesTheNameStays) {
  Builder b;
  b.s.runtime_status = status_evidence(40, 2, 2);
  Report between = b.report();
  ASSERT_FALSE(between.causes.empty());
  EXPECT_EQ(between.causes.front().id, CauseId::kRuntimeStatusHung);
  EXPECT_NE(between.causes.front().summary.find("2 retries ended at the deadline"), std::string::npos)
      << between.causes.front().summary;
  b.s.runtime_status = status_evidence(40, std::nullopt, 2);
  EXPECT_EQ(b.report().causes.front().id, CauseId::kRuntimeStatusHung);
}

TEST(RuntimeStatusHung, TheKubeletsReadyMessageIsMatched) {
  Builder b = status_hung(35, 35);
  b.s.kubelet.ready_message = "container runtime is down";
  Report r = b.report();
  EXPECT_NE(r.causes.front().summary.find("The kubelet's Ready message says so."), std::string::npos);
  EXPECT_EQ(r.runtime_status.ready_message_path, "runtime_status");
}

// Both paths at once: PLEG past its threshold and Status without a sync.
TEST(RuntimeStatusPaths, BothPathsAtOnce) {
  Builder b = status_hung(35, 35);
  b.s.healthy = false;
  b.s.health_message = "pleg was last seen active 3m5s ago; threshold is 3m0s";
  b.s.kubelet.ready_message =
      "[container runtime is down, PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s]";
  Report r = b.report();
  EXPECT_EQ(r.runtime_status.not_ready_path, "both");
  EXPECT_EQ(r.runtime_status.ready_message_path, "both");
  EXPECT_EQ(r.runtime_status.kubelet_errors,
            (std::vector<std::string>{"container runtime is down",
                                      "PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s"}));
}

TEST(RuntimeStatusPaths, PlegOnlyAndAHealthyNode) {
  Builder b;
  b.s.runtime_status = status_evidence(2, std::nullopt);
  Report healthy = b.report();
  EXPECT_EQ(healthy.runtime_status.not_ready_path, "none");
  EXPECT_TRUE(healthy.runtime_status.kubelet_errors.empty());
  EXPECT_TRUE(healthy.causes.empty());
  b.s.healthy = false;
  b.s.health_message = "pleg was last seen active 3m5s ago; threshold is 3m0s";
  b.s.kubelet.ready_message = "PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s";
  Report r = b.report();
  EXPECT_EQ(r.runtime_status.not_ready_path, "pleg");
  EXPECT_EQ(r.runtime_status.ready_message_path, "pleg");
}

TEST(RuntimeNetworkNotReady, ReasonAndMessageAsTheRuntimeGivesThem) {
  Builder b;
  b.s.runtime_status = status_evidence(2, std::nullopt);
  b.s.runtime_status.network_ready =
      RuntimeConditionValue{"NetworkReady", false, "NetworkPluginNotReady", "cni plugin not initialized"};
  b.s.runtime_status.network_not_ready = "container runtime network not ready: NetworkReady=false "
                                         "reason:NetworkPluginNotReady message:cni plugin not initialized";
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.id, CauseId::kRuntimeNetworkNotReady);
  EXPECT_EQ(c.severity, Severity::kCritical);
  EXPECT_NE(c.summary.find("NetworkReady=false (reason NetworkPluginNotReady: cni plugin not initialized)"),
            std::string::npos)
      << c.summary;
  EXPECT_EQ(r.runtime_status.not_ready_path, "runtime_status");
  EXPECT_EQ(r.runtime_status.kubelet_errors.back(), b.s.runtime_status.network_not_ready);
}

// NetworkReady false as the probe reads it: the runtime's condition, what
// its message says, and the CNI configuration the runtime loaded.
RuntimeStatusEvidence network_not_ready(const std::string& message, NetworkMessageKind kind,
                                        const std::string& plugin_error, const std::string& plugin) {
  RuntimeStatusEvidence e = status_evidence(2, std::nullopt);
  e.network_ready = RuntimeConditionValue{"NetworkReady", false, "NetworkPluginNotReady", message};
  e.network_not_ready = "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
                        "message:" + message;
  e.network_message = kind;
  e.cni_plugin_error = plugin_error;
  e.cni_plugin = plugin;
  e.cni = CniNetworkRead{"/etc/cni/net.d",
                         CniNetwork{"10-calico.conflist", "k8s-pod-network", "1.1.0",
                                    {"calico", "bandwidth", "portmap"}, true},
                         "", 2};
  return e;
}

// A configured plugin answers CNI STATUS unhealthy (code 50 on containerd,
// 51 with its details on CRI-O: the same prefix on both): the plugin named
// from the configuration, its daemon to fix, not the runtime.
TEST(RuntimeNetworkNotReady, AConfiguredPluginsStatusNamesThePlugin) {
  for (const auto& [message, error] : std::vector<std::pair<std::string, std::string>>{
           {"Network plugin returns error: calico: datastore not ready", "calico: datastore not ready"},
           {"Network plugin returns error: calico: datastore not ready; existing containers in the network may "
            "have limited connectivity",
            "calico: datastore not ready; existing containers in the network may have limited connectivity"}}) {
    Builder b;
    b.s.runtime_status = network_not_ready(message, NetworkMessageKind::kPluginError, error, "calico");
    Report r = b.report();
    ASSERT_FALSE(r.causes.empty());
    const Cause& c = r.causes.front();
    EXPECT_EQ(c.id, CauseId::kRuntimeNetworkNotReady);
    EXPECT_EQ(c.form, Form::kPluginUnhealthy);
    EXPECT_EQ(c.severity, Severity::kCritical);
    EXPECT_EQ(c.advice, Advice::kNone);
    EXPECT_NE(c.summary.find("the CNI plugin calico of the network k8s-pod-network "
                             "(/etc/cni/net.d/10-calico.conflist) answers CNI STATUS unhealthy: \"" + error + "\""),
              std::string::npos)
        << c.summary;
    EXPECT_NE(c.summary.find("The runtime is not at fault"), std::string::npos) << c.summary;
    EXPECT_EQ(c.summary.find("cni plugin not initialized"), std::string::npos) << c.summary;
    EXPECT_NE(c.action.find("calico's node agent"), std::string::npos) << c.action;
    EXPECT_EQ(c.action.find("restart"), std::string::npos) << c.action;
    ASSERT_FALSE(c.evidence.empty());
    EXPECT_EQ(c.evidence.back().signal, "cni_status_ok{calico}");
  }
}

// A chain whose error names none of its plugins: the network is named, with
// its chain; a directory the agent cannot read: the plugin's words, and how
// to point the agent at the runtime's directory.
TEST(RuntimeNetworkNotReady, APluginErrorNamingNoPluginOrNoConfigurationRead) {
  Builder b;
  b.s.runtime_status = network_not_ready("Network plugin returns error: plugin not available",
                                         NetworkMessageKind::kPluginError, "plugin not available", "");
  const Report r = b.report();
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.form, Form::kPluginUnhealthy);
  EXPECT_NE(c.summary.find("a CNI plugin of the network k8s-pod-network (/etc/cni/net.d/10-calico.conflist: "
                           "calico, then bandwidth, then portmap)"),
            std::string::npos)
      << c.summary;
  EXPECT_EQ(c.evidence.back().signal, "cni_status_ok{k8s-pod-network}");

  Builder blind;
  blind.s.runtime_status = network_not_ready("Network plugin returns error: plugin not available",
                                             NetworkMessageKind::kPluginError, "plugin not available", "");
  blind.s.runtime_status.cni = CniNetworkRead{"/etc/cni/net.d", std::nullopt, "cannot read /etc/cni/net.d", 0};
  const Report rd = blind.report();
  const Cause& d = rd.causes.front();
  EXPECT_EQ(d.form, Form::kPluginUnhealthy);
  EXPECT_NE(d.summary.find("the node's configured CNI plugin answers CNI STATUS unhealthy: \"plugin not available\""),
            std::string::npos)
      << d.summary;
  EXPECT_NE(d.summary.find("cannot read /etc/cni/net.d (point --cni-conf-dir"), std::string::npos) << d.summary;
}

// No configuration (CRI-O's words here; containerd's in the test above): the
// CNI agent that writes it, as before.
TEST(RuntimeNetworkNotReady, NoConfigurationIsNotAPlugin) {
  Builder b;
  b.s.runtime_status = network_not_ready(
      "Network plugin returns error: no CNI configuration file in /etc/cni/net.d/. Has your network provider started?",
      NetworkMessageKind::kNoConfig, "", "");
  b.s.runtime_status.cni = CniNetworkRead{"/etc/cni/net.d", std::nullopt, "", 0};
  const Report r = b.report();
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.id, CauseId::kRuntimeNetworkNotReady);
  EXPECT_EQ(c.form, Form::kFound);
  EXPECT_NE(c.summary.find("The node has no pod network"), std::string::npos) << c.summary;
  EXPECT_NE(c.action.find("CNI agent running so that it writes its configuration"), std::string::npos) << c.action;
  EXPECT_EQ(c.summary.find("STATUS"), std::string::npos) << c.summary;
}

TEST(RuntimeNetworkNotReady, FlappingIsNamedWhileReady) {
  Builder b;
  b.s.runtime_status = status_evidence(2, std::nullopt);
  b.s.runtime_status.transitions_recent = 4;
  b.s.runtime_status.recent_calls = 12;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeNetworkNotReady);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_NE(c->summary.find("changed 4 times over its last 12 Status answers"), std::string::npos) << c->summary;
}

// One outage and its recovery are two changes: all clear once the network
// is ready again, not "flapping" for the minute the changes are counted.
TEST(RuntimeNetworkNotReady, ARecoveredOutageIsAllClear) {
  Builder b;
  b.s.runtime_status = status_evidence(2, std::nullopt);
  b.s.runtime_status.transitions_recent = 2;
  b.s.runtime_status.recent_calls = 12;
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeNetworkNotReady));
  b.s.runtime_status.transitions_recent = 3;
  EXPECT_TRUE(find(b.report(), CauseId::kRuntimeNetworkNotReady));
}

TEST(RuntimeNotReady, RuntimeReadyFalseIsCritical) {
  Builder b;
  b.s.runtime_status = status_evidence(12, std::nullopt);
  b.s.runtime_status.runtime_ready = RuntimeConditionValue{"RuntimeReady", false, "RuntimeNotReady", "runc missing"};
  b.s.runtime_status.runtime_not_ready =
      "container runtime not ready: RuntimeReady=false reason:RuntimeNotReady message:runc missing";
  Report r = b.report();
  ASSERT_FALSE(r.causes.empty());
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeNotReady);
  EXPECT_NE(r.causes.front().summary.find("reason RuntimeNotReady: runc missing"), std::string::npos);
  EXPECT_NE(r.causes.front().summary.find("\"container runtime is down\" in 18s"), std::string::npos)
      << r.causes.front().summary;
  EXPECT_FALSE(find(r, CauseId::kRuntimeStatusHung)) << "it answers";
}

// One hang, one name: with --runtime-request-timeout 15s every list call
// ends at its deadline and is retried; between the retries (a call in
// flight under the hang threshold, slow) and during them (past it), the top
// cause is runtime_hung, never runtime_slow.
Builder lists_timing_out(double retry_in_flight) {
  Builder b;
  b.s.healthy = true;
  const int failed = 3;
  for (int i = 0; i < failed; ++i) {
    RelistRecord r = relist(15, 15, 0);
    r.error_code = GrpcCode::kDeadlineExceeded;
    r.start = kNow - secs(retry_in_flight + 1 + 16.0 * (failed - i));
    b.s.timeline.push_back(r);
  }
  b.s.last_seen = b.s.timeline[b.s.timeline.size() - failed - 1].start;
  auto& lists = b.s.operations[op::kListContainers];
  for (int i = 0; i < failed; ++i)
    lists.recent.push_back({b.s.timeline[b.s.timeline.size() - failed + i].start + seconds(15), 15,
                            GrpcCode::kDeadlineExceeded, {}});
  lists.in_flight = 1;
  lists.oldest_in_flight_seconds = retry_in_flight;
  lists.in_flight_calls = {{retry_in_flight, {}}};
  RelistRecord progress = relist(retry_in_flight, retry_in_flight, 0);
  progress.in_progress = true;
  progress.start = kNow - secs(retry_in_flight);
  b.s.in_progress = progress;
  b.s.relist_in_progress_since = progress.start;
  return b;
}

TEST(OneHangOneName, ListRetriesStayRuntimeHung) {
  for (double in_flight : {0.5, 3.0, 8.0, 9.9, 12.0, 14.5}) {
    Report r = lists_timing_out(in_flight).report();
    ASSERT_FALSE(r.causes.empty()) << in_flight;
    EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung) << in_flight << " s: " << cause_name(r.causes.front().id);
    EXPECT_EQ(r.causes.front().severity, Severity::kCritical) << in_flight;
    EXPECT_FALSE(find(r, CauseId::kRuntimeSlow)) << in_flight;
  }
  Report during = lists_timing_out(12).report();
  EXPECT_NE(during.causes.front().summary.find("after 3 relists that ended at their deadline"), std::string::npos)
      << during.causes.front().summary;
}

}  // namespace
}  // namespace plegscope::testing
