// The snapshot's joins as pure functions: the pods behind per-pod calls and
// behind the host's runtime helpers, resolved through a lookup, no Node.
#include "node/snapshot_joins.h"

#include <gtest/gtest.h>

namespace plegscope {
namespace {

PodLookup known_pods() {
  return [](const CallTarget& target) -> std::optional<PodIdentity> {
    if (target.id == "sandbox-a" || target.id == "container-a")
      return PodIdentity{"uid-a", "web-0", "shop", "sandbox-a", target.id == "container-a" ? "app" : "", true};
    if (target.id == "sandbox-gone") return PodIdentity{"uid-g", "old-0", "shop", "sandbox-gone", "", false};
    return std::nullopt;
  };
}

TEST(SnapshotJoins, PodCallsAreInFlightFirstThenSlowestAndNameTheirPod) {
  std::map<std::string, OperationStats> ops;
  OperationStats& status = ops["container_status"];
  status.in_flight_calls = {{3.0, {CallTarget::Kind::kContainer, "container-a"}},
                            {12.0, {CallTarget::Kind::kSandbox, "sandbox-unknown"}}};
  status.recent = {{TimePoint{}, 0.5, GrpcCode::kOk, {CallTarget::Kind::kContainer, "container-a"}},
                   {TimePoint{}, 0.1, GrpcCode::kOk, {}}};
  auto calls = pod_calls(ops, known_pods());
  ASSERT_EQ(calls.size(), 3u) << "a call without a target names no pod and is left out";
  EXPECT_TRUE(calls[0].in_flight);
  EXPECT_EQ(calls[0].seconds, 12.0) << "the oldest in flight first";
  EXPECT_EQ(calls[0].pod.sandbox_id, "sandbox-unknown") << "a pod not inspected yet is named by its id";
  EXPECT_TRUE(calls[0].pod.name.empty());
  EXPECT_EQ(calls[1].pod.name, "web-0");
  EXPECT_EQ(calls[1].pod.container_name, "app");
  EXPECT_FALSE(calls[2].in_flight);
}

TEST(SnapshotJoins, ShimsMapOnlyToPodsTheRuntimeStillLists) {
  host::HostEvidence h;
  host::HelperProcess listed, gone, runc;
  listed.pid = 10, listed.role = "shim", listed.sandbox_id = "sandbox-a";
  gone.pid = 11, gone.role = "shim", gone.sandbox_id = "sandbox-gone";
  runc.pid = 12, runc.role = "oci_runtime", runc.sandbox_id = "sandbox-a";
  h.processes.helpers = {listed, gone, runc};
  auto pods = shim_pods(h, known_pods());
  ASSERT_EQ(pods.count(10), 1u);
  EXPECT_EQ(pods[10].name, "web-0");
  EXPECT_EQ(pods.count(11), 0u) << "a shim of a pod gone from the lists is what a leak looks like: unmapped";
  EXPECT_EQ(pods.count(12), 0u) << "only shims and conmons serve a pod";
}

TEST(SnapshotJoins, RunningContainersWithoutTheirConmonStartedBeforeTheScan) {
  host::HostEvidence h;
  h.processes.helpers.push_back({100, 1, "conmon", "conmon", 'S', 1, 5.0, "", "container-a", "known"});
  const std::vector<RunningContainer> running = {
      {"container-a", 1000}, {"container-b", 1000}, {"container-late", 5000}, {"container-unknown-start", 0}};
  EXPECT_EQ(containers_without_conmon(h, 2000, running), std::vector<std::string>{"container-b"})
      << "served, lost, started after the scan, and started at an unknown time";
  h.processes.helpers.push_back({101, 1, "conmon", "conmon", 'S', 1, 5.0, "", "", "unreadable"});
  EXPECT_TRUE(containers_without_conmon(h, 2000, running).empty())
      << "a conmon whose command line was not read may be any container's";
}

TEST(SnapshotJoins, TheUnmonitoredContainersPods) {
  CrioPagesEvidence pages;
  pages.unmonitored.push_back({"container-a", "k8s_app_web-0_shop_uid-a_0", "sandbox-a", 42, true, 2});
  pages.unmonitored.push_back({"container-x", "", "", 43, false, 1});
  auto pods = unmonitored_pods(pages, known_pods());
  EXPECT_EQ(pods.at("container-a").name, "web-0");
  EXPECT_EQ(pods.at("container-a").sandbox_id, "sandbox-a");
  EXPECT_TRUE(pods.at("container-x").name.empty());
}

// The host scan asks for the pods with a call in flight, and for the CRI
// socket only when the runtime is a containerd (another's shims then do not count).
TEST(SnapshotJoins, TheHostScanAsksForThePodsInFlightAndTheContainerdSocket) {
  std::vector<Snapshot::PodCall> calls(3);
  calls[0].in_flight = true;
  calls[0].pod.uid = "uid-a";
  calls[1].in_flight = false;
  calls[1].pod.uid = "uid-b";
  calls[2].in_flight = true;  // a pod not known yet: no uid
  const std::string endpoint = "unix:///run/containerd/containerd.sock";
  HostScanAsks asks = host_scan_asks(12.5, calls, RuntimeFamily::kContainerd, endpoint);
  EXPECT_DOUBLE_EQ(asks.oldest_call_seconds, 12.5);
  EXPECT_EQ(asks.pods_in_flight, (std::set<std::string>{"uid-a"}));
  EXPECT_EQ(asks.runtime_socket, endpoint);
  EXPECT_EQ(host_scan_asks(0, calls, RuntimeFamily::kCrio, endpoint).runtime_socket, "");
}

// CRI-O's pages are asked for the running containers no conmon names, and
// nothing before the first host scan.
TEST(SnapshotJoins, CrioPagesAskForTheContainersWithoutAConmonOnceTheHostIsScanned) {
  const ClockReading reading{TimePoint(std::chrono::seconds(1000)), MonoTime(std::chrono::seconds(50))};
  HostObservation none;
  CrioPagesAsks before = crio_pages_asks(none, {{"c1", 1}}, reading);
  EXPECT_TRUE(before.reads_crio);
  EXPECT_TRUE(before.candidates.empty());
  HostObservation scanned;
  scanned.scan.emplace();
  scanned.scanned_at = MonoTime(std::chrono::seconds(40));  // wall 990 s
  const int64_t started = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::seconds(980)).count();
  const int64_t later = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::seconds(995)).count();
  CrioPagesAsks after = crio_pages_asks(scanned, {{"c1", started}, {"c2", later}}, reading);
  EXPECT_EQ(after.candidates, (std::vector<std::string>{"c1"})) << "c2 started after the scan";
}

// The sources' evidence is handed over read: what the kubelet would join
// into its Ready message (PLEG's error between the Status sync's and
// RuntimeReady's) is the node's join, not the diagnoser's.
TEST(SnapshotJoins, TheKubeletsRuntimeErrorsPutPlegsBetweenTheStatusProbes) {
  Snapshot s;
  s.healthy = false;
  s.health_message = "pleg was last seen active 3m5s ago; threshold is 3m0s";
  SourceEvidence evidence;
  evidence.runtime_status.sync_error = kRuntimeDownError;
  evidence.runtime_status.runtime_not_ready = "container runtime not ready: RuntimeReady=false reason:x message:y";
  place_sources(s, std::move(evidence), UnitRoles{}, ClockReading{});
  EXPECT_EQ(s.kubelet_runtime_errors,
            (std::vector<std::string>{kRuntimeDownError, std::string(kPlegNotHealthyPrefix) + s.health_message,
                                      "container runtime not ready: RuntimeReady=false reason:x message:y"}));
  Snapshot healthy;
  healthy.healthy = true;
  place_sources(healthy, SourceEvidence{}, UnitRoles{}, ClockReading{});
  EXPECT_TRUE(healthy.kubelet_runtime_errors.empty());
}

}  // namespace
}  // namespace plegscope
