#include "runtime_metrics/runtime_metrics.h"

#include <gtest/gtest.h>

#include "fixture.h"

namespace plegscope {
namespace {

using std::chrono::seconds;

const GrpcMethodCalls* method(const RuntimeMetricsSample& s, const std::string& service,
                              const std::string& name) {
  for (const auto& m : s.grpc_methods) {
    if (m.service == service && m.method == name) return &m;
  }
  return nullptr;
}

TEST(RuntimeMetrics, RealContainerd16PageIsIdle) {
  RuntimeMetricsSample s = parse_runtime_metrics(read_fixture("runtime_metrics/containerd-1.6.txt"));
  EXPECT_EQ(s.malformed_lines, 0u) << s.parse_error;
  EXPECT_EQ(s.kind, RuntimeKind::containerd);
  EXPECT_EQ(s.version, "1.6.20~ds1");
  EXPECT_GT(s.grpc_methods.size(), 100u);
  for (const auto& m : s.grpc_methods) EXPECT_EQ(m.in_flight(), 0) << m.method;
  ASSERT_NE(method(s, "runtime.v1.RuntimeService", "ListContainers"), nullptr);
  EXPECT_EQ(s.network_operations.count("sandbox_create_network"), 1u);
  EXPECT_EQ(s.network_operations.count("sandbox_delete_network"), 1u);
  EXPECT_FALSE(s.container_events_dropped);  // 2.x only
}

TEST(RuntimeMetrics, HandledCallsSumOverCodesInAnyOrder) {
  // Handled series by code, in an order unlike the started ones; a method
  // with two started series (another label set); a handled series of a
  // method never started, and one with a label value written with escapes.
  std::string page =
      "grpc_server_started_total{grpc_method=\"List\",grpc_service=\"a.S\",grpc_type=\"unary\"} 5\n"
      "grpc_server_started_total{grpc_method=\"Get\",grpc_service=\"a.S\",grpc_type=\"unary\"} 4\n"
      "grpc_server_started_total{grpc_method=\"Get\",grpc_service=\"b.T\",grpc_type=\"unary\"} 3\n"
      "grpc_server_started_total{grpc_method=\"Get\",grpc_service=\"a.S\",grpc_type=\"stream\"} 2\n"
      "grpc_server_started_total{grpc_method=\"Q\\\"x\",grpc_service=\"a.S\",grpc_type=\"unary\"} 1\n"
      "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Get\",grpc_service=\"b.T\"} 1\n"
      "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"List\",grpc_service=\"a.S\"} 2\n"
      "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Get\",grpc_service=\"a.S\"} 3\n"
      "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Gone\",grpc_service=\"a.S\"} 9\n"
      "grpc_server_handled_total{grpc_code=\"Unknown\",grpc_method=\"List\",grpc_service=\"a.S\"} 3\n"
      "grpc_server_handled_total{grpc_code=\"Unknown\",grpc_method=\"Get\",grpc_service=\"a.S\"} 1\n"
      "grpc_server_handled_total{grpc_code=\"Unknown\",grpc_method=\"Get\",grpc_service=\"b.T\"} 1\n"
      "grpc_server_handled_total{grpc_code=\"OK\",grpc_method=\"Q\\\"x\",grpc_service=\"a.S\"} 1\n";
  RuntimeMetricsSample s = parse_runtime_metrics(page);
  EXPECT_EQ(s.malformed_lines, 0u) << s.parse_error;
  ASSERT_EQ(s.grpc_methods.size(), 4u);
  // Sorted by service, then method.
  EXPECT_EQ(s.grpc_methods[0].method, "Get");
  EXPECT_EQ(s.grpc_methods[0].service, "a.S");
  EXPECT_EQ(s.grpc_methods[0].started, 6);
  EXPECT_EQ(s.grpc_methods[0].handled, 4);
  EXPECT_EQ(s.grpc_methods[1].method, "List");
  EXPECT_EQ(s.grpc_methods[1].started, 5);
  EXPECT_EQ(s.grpc_methods[1].handled, 5);
  EXPECT_EQ(s.grpc_methods[2].method, "Q\"x");
  EXPECT_EQ(s.grpc_methods[2].in_flight(), 0);
  EXPECT_EQ(s.grpc_methods[3].service, "b.T");
  EXPECT_EQ(s.grpc_methods[3].started, 3);
  EXPECT_EQ(s.grpc_methods[3].handled, 2);
  EXPECT_EQ(method(s, "a.S", "Gone"), nullptr);
}

TEST(RuntimeMetrics, ContainerdInFlightUpdateAndCni) {
  RuntimeMetricsSample s =
      parse_runtime_metrics(read_fixture("runtime_metrics/containerd-2.0-update-in-flight.txt"));
  EXPECT_EQ(s.malformed_lines, 0u) << s.parse_error;
  auto* update = method(s, "runtime.v1.RuntimeService", "UpdateContainerResources");
  ASSERT_NE(update, nullptr);
  EXPECT_EQ(update->in_flight(), 1);
  EXPECT_EQ(method(s, "runtime.v1.RuntimeService", "ListContainers")->in_flight(), 2);
  EXPECT_EQ(method(s, "runtime.v1.RuntimeService", "Version")->in_flight(), 0);
  ASSERT_EQ(s.network_operations.count("set_up_pod"), 1u);
  EXPECT_EQ(s.network_operations.at("set_up_pod").count, 30);
  EXPECT_EQ(s.network_operation_errors.at("set_up_pod"), 1);
  EXPECT_EQ(s.container_events_dropped, 0);
  EXPECT_EQ(s.version, "v2.0.0");
  ASSERT_TRUE(s.gc_seconds);
  EXPECT_EQ(s.gc_seconds->count, 12);
}

// A real CRI-O 1.34.0 page (the e2e fixture's, one pod with one container),
// and the stage counter it shows only once a create stalled.
TEST(RuntimeMetrics, Crio134PageAndStalledStages) {
  std::string page = read_fixture("runtime_metrics/crio-1.34.0.txt");
  RuntimeMetricsSample s = parse_runtime_metrics(page);
  EXPECT_EQ(s.malformed_lines, 0u) << s.parse_error;
  EXPECT_EQ(s.kind, RuntimeKind::crio);
  ASSERT_TRUE(s.crio_operations.count("ListContainers"));
  EXPECT_EQ(s.crio_operations.at("ListContainers").count, 1);
  EXPECT_TRUE(s.crio_stalled_at_stage.empty());
  page += "# TYPE container_runtime_crio_resources_stalled_at_stage counter\n"
          "container_runtime_crio_resources_stalled_at_stage{stage=\"container runtime creation\"} 3\n";
  s = parse_runtime_metrics(page);
  EXPECT_EQ(s.crio_stalled_at_stage.at("container runtime creation"), 3);
}

TEST(RuntimeMetrics, CrioOperationsDefunctAndDropped) {
  RuntimeMetricsSample s = parse_runtime_metrics(read_fixture("runtime_metrics/crio-1.30.txt"));
  EXPECT_EQ(s.malformed_lines, 0u) << s.parse_error;
  EXPECT_EQ(s.kind, RuntimeKind::crio);
  const CrioOperation& net = s.crio_operations.at("network_setup_pod");
  EXPECT_NEAR(*net.p99, 14.116541711, 1e-9);
  EXPECT_EQ(net.count, 31);
  EXPECT_NEAR(*net.last_seconds, 14.116541711, 1e-9);
  EXPECT_EQ(s.crio_operation_errors.at("RunPodSandbox"), 1);
  EXPECT_EQ(s.crio_processes_defunct, 7);
  EXPECT_EQ(s.container_events_dropped, 4);
  EXPECT_TRUE(s.grpc_methods.empty());
}

TEST(RuntimeMetrics, Containerd23NriPluginTimedOut) {
  // containerd 2.3.7's page after NRI gave up on 10-stall's CreateContainer at its 2 s timeout.
  RuntimeMetricsSample s =
      parse_runtime_metrics(read_fixture("runtime_metrics/containerd-2.3.7-nri-timeout.txt"));
  EXPECT_EQ(s.kind, RuntimeKind::containerd);
  EXPECT_EQ(s.version, "v2.3.7");
  ASSERT_TRUE(s.nri_active_plugins.has_value());
  EXPECT_EQ(*s.nri_active_plugins, 0);
  const std::string key = nri_call_key("10-stall", "CreateContainer");
  ASSERT_EQ(s.nri_latency.count(key), 1u);
  const Histogram& h = s.nri_latency.at(key);
  EXPECT_EQ(h.count, 2);
  EXPECT_NEAR(h.sum, 2.0227, 0.001);
  EXPECT_EQ(count_above(h, 1).value_or(-1), 1);  // the call given up at 2 s
  EXPECT_EQ(s.nri_latency.count(nri_call_key("10-stall", "Synchronize")), 1u);
  // Only the deadline's errors are kept, by plugin and operation.
  ASSERT_EQ(s.nri_timeouts.size(), 1u);
  EXPECT_EQ(s.nri_timeouts.at(key), 1);
  EXPECT_EQ(split_nri_call_key(key), std::make_pair(std::string("10-stall"), std::string("CreateContainer")));
}

TEST(RuntimeMetrics, GarbageIsNoFamily) {
  RuntimeMetricsSample s = parse_runtime_metrics("404 page not found\n");
  EXPECT_EQ(s.families_found, 0u);
  EXPECT_EQ(s.kind, RuntimeKind::unknown);
}

RuntimeMetricsSample in_flight_sample(double started, double handled) {
  RuntimeMetricsSample s;
  s.grpc_methods.push_back({"runtime.v1.RuntimeService", "UpdateContainerResources", started, handled});
  s.grpc_methods.push_back({"runtime.v1.RuntimeService", "Version", 9, 9});
  return s;
}

TEST(RuntimeMetricsState, AgesACallInFlightUntilItCompletes) {
  RuntimeMetricsState state;
  MonotonicTime t0{};
  state.observe(in_flight_sample(12, 11), t0);
  state.observe(in_flight_sample(12, 11), t0 + seconds(30));
  auto calls = state.in_flight(t0 + seconds(45));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].method, "UpdateContainerResources");
  EXPECT_EQ(calls[0].count, 1);
  EXPECT_EQ(calls[0].seconds, 45);
  EXPECT_EQ(calls[0].completed_since, 0);
  // Done: nothing in flight, and a later call starts its own clock.
  state.observe(in_flight_sample(12, 12), t0 + seconds(50));
  EXPECT_TRUE(state.in_flight(t0 + seconds(50)).empty());
  state.observe(in_flight_sample(13, 12), t0 + seconds(60));
  EXPECT_EQ(state.in_flight(t0 + seconds(61))[0].seconds, 1);
}

TEST(RuntimeMetricsState, CompletionsWhileInFlightAreCounted) {
  RuntimeMetricsState state;
  MonotonicTime t0{};
  state.observe(in_flight_sample(10, 9), t0);
  state.observe(in_flight_sample(20, 19), t0 + seconds(10));
  auto calls = state.in_flight(t0 + seconds(10));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].completed_since, 10);
}

}  // namespace
}  // namespace plegscope
