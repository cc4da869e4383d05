#include "cri/operation_tracker.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cri/runtime_client.h"
#include "fake_clock.h"

namespace plegscope {
namespace {

using namespace std::chrono;

std::string exposition(const OperationTracker& tracker, prometheus::Registry& registry) {
  auto families = registry.Collect();
  auto more = tracker.Collect();
  families.insert(families.end(), more.begin(), more.end());
  return prometheus::TextSerializer().Serialize(families);
}

TEST(OperationTracker, InFlightAgeGrowsUntilTheCallEnds) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  auto id = tracker.begin(op::kListContainers);
  clock.step(seconds(42));
  auto s = tracker.stats(op::kListContainers);
  EXPECT_EQ(s.in_flight, 1);
  EXPECT_DOUBLE_EQ(s.oldest_in_flight_seconds, 42);
  std::string text = exposition(tracker, registry);
  EXPECT_NE(text.find("pleg_runtime_operation_oldest_in_flight_seconds{operation_type=\"list_"
                      "containers\"} 42"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pleg_runtime_operations_in_flight{operation_type=\"list_containers\"} 1"),
            std::string::npos);

  tracker.end(id, 4);
  s = tracker.stats(op::kListContainers);
  EXPECT_EQ(s.in_flight, 0);
  EXPECT_EQ(s.oldest_in_flight_seconds, 0);
  EXPECT_EQ(s.count, 1u);
  EXPECT_EQ(s.errors, 1u);
  EXPECT_EQ(s.errors_by_code.at(GrpcCode::kDeadlineExceeded), 1u);
  EXPECT_DOUBLE_EQ(s.max_seconds, 42);
  text = exposition(tracker, registry);
  EXPECT_NE(text.find("pleg_runtime_operations_errors_total{code=\"DEADLINE_EXCEEDED\","
                      "operation_type=\"list_containers\"} 1"),
            std::string::npos)
      << text;
}

// An ntpd step or a VM resume moves the wall clock alone: a hung call's age,
// a completed call's latency and the recent window follow the monotonic clock.
TEST(OperationTracker, WallClockStepsNeitherFreezeNorInflateAges) {
  for (auto wall_step : {-hours(1), hours(1)}) {
    testing::FakeClock clock;
    prometheus::Registry registry;
    OperationTracker tracker(registry, clock);
    tracker.end(tracker.begin(op::kListPodSandbox), 0);
    auto id = tracker.begin(op::kListContainers);
    clock.step(seconds(10));
    clock.step_wall(wall_step);
    clock.step(seconds(5));
    EXPECT_DOUBLE_EQ(tracker.stats(op::kListContainers).oldest_in_flight_seconds, 15);
    EXPECT_DOUBLE_EQ(tracker.oldest_in_flight_seconds(), 15);
    EXPECT_NE(exposition(tracker, registry)
                  .find("pleg_runtime_operation_oldest_in_flight_seconds{operation_type=\"list_containers\"} 15"),
              std::string::npos);
    tracker.end(id, 0);
    auto s = tracker.stats(op::kListContainers);
    EXPECT_DOUBLE_EQ(s.max_seconds, 15);
    // The earlier call ended 15 s ago on the monotonic clock: handed out on
    // the wall axis of this reading, whatever the step.
    auto lists = tracker.stats(op::kListPodSandbox);
    ASSERT_EQ(lists.recent.size(), 1u) << "15 s old: inside the recent window either way";
    EXPECT_EQ(clock.now() - lists.recent[0].end, seconds(15));
  }
}

// A hung per-pod call must say which pod it waits on: the stuck pod is what
// the operator has to find.
TEST(OperationTracker, PerPodCallsKeepTheirTargetInFlightAndAfter) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  const CallTarget sandbox{CallTarget::Kind::kSandbox, "sb-stuck"};
  const CallTarget other{CallTarget::Kind::kSandbox, "sb-fine"};
  auto stuck = tracker.begin(op::kPodSandboxStatus, {}, sandbox);
  clock.step(seconds(5));
  auto fine = tracker.begin(op::kPodSandboxStatus, {}, other);
  clock.step(milliseconds(20));
  tracker.end(fine, 0);
  clock.step(seconds(9));

  auto s = tracker.stats(op::kPodSandboxStatus);
  ASSERT_EQ(s.in_flight_calls.size(), 1u);
  EXPECT_EQ(s.in_flight_calls[0].target, sandbox);
  EXPECT_DOUBLE_EQ(s.in_flight_calls[0].seconds, 14.02);
  ASSERT_EQ(s.recent.size(), 1u);
  EXPECT_EQ(s.recent[0].target, other);

  tracker.end(stuck, 0);
  s = tracker.stats(op::kPodSandboxStatus);
  EXPECT_TRUE(s.in_flight_calls.empty());
  ASSERT_EQ(s.recent.size(), 2u);
  EXPECT_EQ(s.recent[1].target, sandbox);
  EXPECT_DOUBLE_EQ(s.recent[1].seconds, 14.02);
  // Unfiltered calls name nothing.
  tracker.end(tracker.begin(op::kListContainers), 0);
  EXPECT_TRUE(tracker.stats(op::kListContainers).recent[0].target.empty());
}

TEST(OperationTracker, QuantilesOverTheRecentWindow) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  for (int i = 1; i <= 100; ++i) {
    auto id = tracker.begin(op::kContainerStatus);
    clock.step(milliseconds(i));
    tracker.end(id, 0);
  }
  auto s = tracker.stats(op::kContainerStatus);
  EXPECT_NEAR(s.p50_seconds, 0.050, 0.002);
  EXPECT_NEAR(s.p99_seconds, 0.099, 0.002);
  EXPECT_DOUBLE_EQ(s.max_seconds, 0.1);
  EXPECT_EQ(s.recent.size(), 100u);
}

// Latency is judged over a rolling window, not totals since start: slow
// calls five minutes ago no longer count once fast ones follow.
TEST(OperationTracker, RecentWindowForgetsOldCalls) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  for (int i = 0; i < 10; ++i) {
    auto id = tracker.begin(op::kListContainers);
    clock.step(std::chrono::seconds(4));
    tracker.end(id, 0);
  }
  EXPECT_NEAR(tracker.stats(op::kListContainers).p50_seconds, 4.0, 1e-9);
  clock.step(OperationTracker::kRecentWindow);
  for (int i = 0; i < 3; ++i) {
    auto id = tracker.begin(op::kListContainers);
    clock.step(milliseconds(2));
    tracker.end(id, 14);  // UNAVAILABLE
  }
  auto s = tracker.stats(op::kListContainers);
  EXPECT_EQ(s.recent.size(), 3u);
  EXPECT_NEAR(s.p50_seconds, 0.002, 1e-9);
  EXPECT_EQ(s.count, 13u);  // totals stay totals
  EXPECT_EQ(s.recent.back().code, GrpcCode::kUnavailable);
  EXPECT_EQ(s.errors_by_code.at(GrpcCode::kUnavailable), 3u);
}

TEST(OperationTracker, CancelAllCallsEveryInFlightCancel) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  int cancelled = 0;
  tracker.begin(op::kListContainers, [&] { cancelled++; });
  tracker.begin(op::kContainerStatus, [&] { cancelled++; });
  tracker.cancel_all();
  EXPECT_EQ(cancelled, 2);
}

TEST(OperationTracker, ListSizesAreGauges) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  tracker.record_list_size(op::kListContainers, 1234, 7);
  auto s = tracker.stats(op::kListContainers);
  EXPECT_EQ(*s.last_list_bytes, 1234u);
  EXPECT_EQ(*s.last_list_items, 7u);
  EXPECT_NE(exposition(tracker, registry)
                .find("pleg_runtime_list_response_bytes{operation_type=\"list_containers\"} 1234"),
            std::string::npos);
}

// The lean bill: only the relist path's operations get a histogram, with
// buckets at the shipped thresholds; errors appear with their first code.
TEST(OperationTracker, LeanDetailTimesTheRelistPathOnly) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  tracker.end(tracker.begin(op::kVersion), 0);
  tracker.end(tracker.begin(op::kListContainers), 0);
  tracker.record(op::kStreamContainers, static_cast<int>(GrpcCode::kUnimplemented), 0.001);
  std::string text = exposition(tracker, registry);
  EXPECT_NE(text.find("pleg_runtime_operations_duration_seconds_count{operation_type=\"list_containers\"} 1"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("pleg_runtime_operations_duration_seconds_count{operation_type=\"version\"}"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("pleg_runtime_operations_duration_seconds_count{operation_type=\"stream_containers\"}"),
            std::string::npos) << text;
  EXPECT_NE(text.find("pleg_runtime_operations_total{operation_type=\"version\"} 1"), std::string::npos);
  // No operation that was never called, no error that never happened.
  EXPECT_EQ(text.find("operation_type=\"podsandbox_status\""), std::string::npos) << text;
  EXPECT_EQ(text.find("pleg_runtime_operations_errors_total{code=\"UNAVAILABLE\""), std::string::npos);
  EXPECT_NE(text.find("le=\"10\""), std::string::npos);
  EXPECT_NE(text.find("le=\"600\""), std::string::npos);
  EXPECT_EQ(text.find("le=\"0.0005\""), std::string::npos);

  prometheus::Registry full_registry;
  OperationTracker full(full_registry, clock, MetricDetail::kFull);
  full.end(full.begin(op::kVersion), 0);
  text = exposition(full, full_registry);
  EXPECT_NE(text.find("pleg_runtime_operations_duration_seconds_bucket{operation_type=\"version\",le=\"0.0005\"}"),
            std::string::npos) << text;
}

TEST(OperationTracker, UnreachableRuntimeCarriesItsReason) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  EXPECT_EQ(exposition(tracker, registry).find("pleg_runtime_unreachable"), std::string::npos);
  tracker.note_reachability(ConnectProblem::kPermissionDenied);
  EXPECT_NE(exposition(tracker, registry).find("pleg_runtime_unreachable{reason=\"permission_denied\"} 1"),
            std::string::npos);
  tracker.note_reachability(ConnectProblem::kNone);
  EXPECT_EQ(exposition(tracker, registry).find("pleg_runtime_unreachable"), std::string::npos);
}

TEST(OperationTracker, WhatAFailedCallMeansDependsOnWhetherTheRuntimeEverAnswered) {
  testing::FakeClock clock;
  prometheus::Registry registry;
  OperationTracker tracker(registry, clock);
  // Never answered: a socket that accepts but gives no CRI answer is no CRI
  // runtime; a missing socket is where the agent looks.
  tracker.note_unreachable(ConnectProblem::kNone);
  EXPECT_EQ(tracker.reachability(), ConnectProblem::kNotCri);
  EXPECT_NE(exposition(tracker, registry).find("pleg_runtime_unreachable{reason=\"not_cri\"} 1"),
            std::string::npos);
  tracker.note_unreachable(ConnectProblem::kNoSuchSocket);
  EXPECT_EQ(tracker.reachability(), ConnectProblem::kNoSuchSocket);
  // Once it answered, the same failures are the runtime's.
  tracker.note_answered();
  EXPECT_EQ(tracker.reachability(), ConnectProblem::kNone);
  tracker.note_unreachable(ConnectProblem::kNoSuchSocket);
  EXPECT_EQ(tracker.reachability(), ConnectProblem::kSocketRemoved);
  tracker.note_unreachable(ConnectProblem::kNone);
  EXPECT_EQ(tracker.reachability(), ConnectProblem::kNone);
  tracker.note_unreachable(ConnectProblem::kNotCri);
  EXPECT_EQ(tracker.reachability(), ConnectProblem::kNone);
  tracker.note_unreachable(ConnectProblem::kPermissionDenied);
  EXPECT_EQ(tracker.reachability(), ConnectProblem::kPermissionDenied);
}

TEST(RuntimeSocket, OnlyTheAgentsOwnProblemsAreBlindness) {
  for (ConnectProblem p : {ConnectProblem::kPermissionDenied, ConnectProblem::kNoSuchSocket,
                           ConnectProblem::kNotASocket, ConnectProblem::kNotCri})
    EXPECT_TRUE(agent_side(p)) << connect_problem_name(p);
  for (ConnectProblem p : {ConnectProblem::kNone, ConnectProblem::kConnectionRefused, ConnectProblem::kSocketRemoved,
                           ConnectProblem::kOther})
    EXPECT_FALSE(agent_side(p)) << connect_problem_name(p);
}

TEST(RuntimeSocket, ConnectErrorsNameTheirReason) {
  EXPECT_EQ(connect_problem_of(EACCES), ConnectProblem::kPermissionDenied);
  EXPECT_EQ(connect_problem_of(EPERM), ConnectProblem::kPermissionDenied);
  EXPECT_EQ(connect_problem_of(ENOENT), ConnectProblem::kNoSuchSocket);
  EXPECT_EQ(connect_problem_of(ECONNREFUSED), ConnectProblem::kConnectionRefused);
  EXPECT_EQ(connect_problem_of(EIO), ConnectProblem::kOther);
  EXPECT_STREQ(connect_problem_name(ConnectProblem::kPermissionDenied), "permission_denied");
  EXPECT_STREQ(connect_problem_name(ConnectProblem::kNoSuchSocket), "no_such_socket");

  char dir[] = "/tmp/plegscope-probe-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/cri.sock";
  EXPECT_EQ(probe_connect(path), ConnectProblem::kNoSuchSocket);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  // Bound, nobody listening: a stopped runtime's stale socket.
  EXPECT_EQ(probe_connect(path), ConnectProblem::kConnectionRefused);
  ASSERT_EQ(::listen(fd, 4), 0);
  EXPECT_EQ(probe_connect(path), ConnectProblem::kNone);
  ::close(fd);
  ::unlink(path.c_str());
  ::rmdir(dir);
}

TEST(GrpcCodes, NamesRoundTrip) {
  EXPECT_EQ(grpc_code_name(14), "UNAVAILABLE");
  EXPECT_EQ(grpc_code_name(8), "RESOURCE_EXHAUSTED");
  EXPECT_EQ(grpc_code_from_name("DEADLINE_EXCEEDED"), 4);
  EXPECT_EQ(grpc_code_from_name("NOPE"), -1);
  EXPECT_EQ(grpc_code_name(99), "UNKNOWN");
}

}  // namespace
}  // namespace plegscope
