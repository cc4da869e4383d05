// Node's outward face: one Snapshot of what was observed, pods and events
// for /debug, health and metrics; and the one runtime-socket check.
#include "node/node.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

#include "fake_clock.h"
#include "node/node_without_runtime.h"
#include "cri/runtime_socket.h"
#include "source_tree.h"

namespace plegscope {
namespace {

TEST(Node, SnapshotSaysWhatWasObservedWithoutARuntime) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  Snapshot s = node.snapshot();
  EXPECT_EQ(s.node, "test");
  EXPECT_EQ(s.now, clock.now());
  EXPECT_EQ(s.endpoint, "unix:///nonexistent/plegscope-test.sock");
  ASSERT_TRUE(s.socket_present.has_value()) << "a unix socket path is checked";
  EXPECT_FALSE(*s.socket_present);
  EXPECT_FALSE(s.healthy);
  EXPECT_EQ(s.health_message, "pleg has yet to be successful");
  EXPECT_FALSE(s.last_seen);
  EXPECT_TRUE(s.timeline.empty());
  EXPECT_EQ(s.relist_period, std::chrono::seconds(1));
  EXPECT_EQ(s.relist_threshold, std::chrono::minutes(3));
}

// The snapshot's instants are placed on one axis from monotonic readings: the
// diagnoser's subtractions give monotonic intervals after a wall-clock step,
// and the dates shown follow the wall clock as it reads now.
TEST(Node, SnapshotIntervalsAreMonotonicAcrossWallClockSteps) {
  for (auto wall_step : {-std::chrono::hours(1), std::chrono::hours(1)}) {
    testing::FakeClock clock;
    Node node(testing::node_without_runtime(), clock);
    node.relist();
    clock.step(std::chrono::seconds(7));
    clock.step_wall(wall_step);
    clock.step(std::chrono::seconds(3));
    Snapshot s = node.snapshot();
    EXPECT_EQ(s.now, clock.now());
    EXPECT_EQ(s.monotonic, clock.monotonic());
    ASSERT_EQ(s.timeline.size(), 1u);
    EXPECT_EQ(s.now - s.timeline.front().start, std::chrono::seconds(10))
        << "the relist began 10 s ago on the monotonic clock";
  }
}

TEST(Node, EveryRelistLandsInTheTimelineAndTheCount) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  EXPECT_EQ(node.relist_count(), 0u);
  node.relist();
  node.relist();
  EXPECT_EQ(node.relist_count(), 2u);
  Snapshot s = node.snapshot();
  ASSERT_EQ(s.timeline.size(), 2u);
  ASSERT_TRUE(s.timeline.back().error_code);
  EXPECT_EQ(*s.timeline.back().error_code, GrpcCode::kUnavailable) << "no socket: the runtime is unavailable";
  EXPECT_TRUE(node.pods().empty());
  EXPECT_TRUE(node.events().empty());
  EXPECT_FALSE(node.health().healthy);
}

TEST(Node, ReadsNodeEvidenceFromTheGivenProcPath) {
  testing::FakeClock clock;
  NodeOptions options = testing::node_without_runtime();
  options.host.proc_path = source_tree::fixtures() + "/proc/io_pressure";
  Node node(options, clock);
  Snapshot s = node.snapshot();
  ASSERT_TRUE(s.pressure);
  ASSERT_TRUE(s.pressure->io_some_avg10);
  EXPECT_DOUBLE_EQ(*s.pressure->io_some_avg10, 62.35);
}

// The host scan runs as a job of the quick lane; snapshot() copies its
// latest evidence and never scans itself.
TEST(Node, HostEvidenceComesFromItsLaneNotFromSnapshot) {
  testing::FakeClock clock;
  NodeOptions options = testing::node_without_runtime();
  options.host.proc_path = source_tree::fixtures() + "/host/zombies_300/proc";
  options.host.sys_path = source_tree::fixtures() + "/host/zombies_300/sys";
  options.host.clock_ticks_per_second = 100;
  Node node(options, clock);
  Lanes lanes(clock);
  node.start(lanes.view());
  EXPECT_FALSE(node.snapshot().host) << "no scan before the lane ran: snapshot() does not scan";
  lanes.quick().run_due();  // the scan's first run is due at once
  std::optional<host::HostEvidence> host = node.snapshot().host;
  ASSERT_TRUE(host) << "no host scan on the quick lane's first run";
  EXPECT_EQ(host->processes.zombies, 303);
  std::set<std::string> names;
  for (const auto& family : node.collect_metrics()) names.insert(family.name);
  EXPECT_EQ(names.count("pleg_host_zombie_processes"), 1u);
  EXPECT_EQ(names.count("pleg_host_blocked_processes"), 1u);
  EXPECT_FALSE(node.snapshot().zombie_history.empty());
  node.stop();
  lanes.stop();
}

TEST(Node, HostScanOffLeavesTheSnapshotWithout) {
  testing::FakeClock clock;
  NodeOptions options = testing::node_without_runtime();
  options.host.enabled = false;
  Node node(options, clock);
  Lanes lanes(clock);
  node.start(lanes.view());
  lanes.quick().run_due();
  EXPECT_FALSE(node.snapshot().host);
  node.stop();
  lanes.stop();
}

TEST(Node, MetricsHoldTheRegistryTheTrackerAndTheVerdict) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  std::set<std::string> names;
  for (const auto& family : node.collect_metrics()) names.insert(family.name);
  for (const char* name : {"pleg_relist_duration_seconds", "pleg_runtime_operations_total", "pleg_healthy",
                           "plegscope_build_info", "pleg_relist_period_seconds"})
    EXPECT_EQ(names.count(name), 1u) << name;
  EXPECT_EQ(names.count("pleg_diagnosis_cause"), 0u) << "the diagnosis is the DiagnosisService's";
}

TEST(RuntimeSocket, TellsMissingFileSocketAndNonPath) {
  char tmpl[] = "/tmp/plegscope-socket-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string file = dir + "/file", sock = dir + "/cri.sock";
  std::ofstream(file) << "x";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);

  EXPECT_EQ(runtime_socket_state("unix://" + sock), SocketState::kSocket);
  EXPECT_EQ(runtime_socket_state(sock), SocketState::kSocket);
  EXPECT_EQ(runtime_socket_state("unix://" + file), SocketState::kNotASocket);
  EXPECT_EQ(runtime_socket_state("unix://" + dir + "/absent.sock"), SocketState::kMissing);
  EXPECT_EQ(runtime_socket_state("tcp://127.0.0.1:1"), SocketState::kNotAUnixPath);

  ::close(fd);
  std::remove(sock.c_str());
  std::remove(file.c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace plegscope
