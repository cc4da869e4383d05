// Scenario loading, Go durations and the phase schedule: pure, no sockets.
#include <gtest/gtest.h>

#include <filesystem>

#include "go_duration.h"
#include "phase_schedule.h"
#include "scenario_loader.h"

namespace fakecri {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::string error_of(const std::string& json) {
  try {
    parse_scenario(json);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

TEST(GoDuration, ParsesGoSyntax) {
  EXPECT_EQ(parse_go_duration("300ms"), milliseconds(300));
  EXPECT_EQ(parse_go_duration("1m30s"), seconds(90));
  EXPECT_EQ(parse_go_duration("1.5s"), milliseconds(1500));
  EXPECT_EQ(parse_go_duration("250us"), std::chrono::microseconds(250));
  EXPECT_EQ(parse_go_duration("0"), Duration(0));
  EXPECT_EQ(parse_go_duration("2h"), std::chrono::hours(2));
  for (const char* bad : {"", "5", "ms", "1x", "-1s", "1..2s", "banana"}) {
    EXPECT_FALSE(parse_go_duration(bad)) << bad;
  }
}

TEST(ScenarioLoader, DefaultsMergeIntoPhasesAndSpecificKeysWin) {
  Scenario s = parse_scenario(R"({
    "name": "t", "node": {"pods": 3, "containers_per_pod": 2, "namespaces": 2},
    "runtime": {"container_events": true},
    "defaults": {"latency": {"*": "1ms", "lists": {"fixed": "5ms", "per_item": "10us"}}},
    "phases": [
      {"name": "a", "duration": "2s", "latency": {"ListContainers": {"fixed": "300ms", "jitter": "1s"}}},
      {"name": "b", "hangs": {"ListContainers": true}, "errors": {"statuses": {"code": "UNKNOWN", "rate": 0.5, "pods": 2}},
       "socket": "down", "pad_bytes": 100, "events": {"break_after": 3}}
    ]})");
  ASSERT_EQ(s.phases.size(), 2u);
  EXPECT_EQ(s.node.namespaces, (std::vector<std::string>{"ns-0", "ns-1"}));
  EXPECT_TRUE(s.runtime.container_events);
  EXPECT_FALSE(s.runtime.list_streaming);
  const auto& a = s.phases[0].ops;
  EXPECT_EQ(a[index(Op::Version)].latency.fixed, milliseconds(1));
  EXPECT_EQ(a[index(Op::ListPodSandbox)].latency.fixed, milliseconds(5));
  EXPECT_EQ(a[index(Op::ListPodSandbox)].latency.per_item, std::chrono::microseconds(10));
  EXPECT_EQ(a[index(Op::ListContainers)].latency.fixed, milliseconds(300));
  EXPECT_EQ(a[index(Op::ListContainers)].latency.jitter, seconds(1));
  const auto& b = s.phases[1];
  EXPECT_EQ(b.duration, std::nullopt);
  EXPECT_TRUE(b.ops[index(Op::ListContainers)].hang.has_value());
  EXPECT_FALSE(b.ops[index(Op::ListContainers)].hang->duration.has_value());
  ASSERT_EQ(b.ops[index(Op::ContainerStatus)].errors.size(), 1u);
  EXPECT_EQ(b.ops[index(Op::ContainerStatus)].errors[0].pods.first, 2);
  EXPECT_EQ(b.ops[index(Op::ContainerStatus)].errors[0].code, grpc::StatusCode::UNKNOWN);
  EXPECT_FALSE(b.socket_up);
  EXPECT_EQ(b.pad_bytes, 100u);
  EXPECT_EQ(b.events.break_after, 3);
  EXPECT_EQ(b.ops[index(Op::Version)].latency.fixed, milliseconds(1));  // from defaults
}

TEST(ScenarioLoader, ErrorsNameThePath) {
  EXPECT_NE(error_of(R"({"phases": [{"name": "x", "latency": {"ListContainer": "1s"}}]})")
                .find("phases[0].latency.ListContainer: unknown operation"), std::string::npos);
  EXPECT_NE(error_of(R"({"phases": [{"latency": {"*": "fast"}}]})").find("phases[0].latency.*: invalid duration"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"phases": [{"errors": {"Version": {"code": "NOPE"}}}]})")
                .find("phases[0].errors.Version.code: unknown gRPC status code"), std::string::npos);
  EXPECT_NE(error_of(R"({"phases": [{"name": "a"}, {"name": "b"}]})").find("phases[0].duration: missing"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"node": {"podz": 1}})").find("node.podz: unknown key"), std::string::npos);
  EXPECT_NE(error_of(R"({"phases": [{"socket": "sideways"}]})").find("phases[0].socket"), std::string::npos);
  EXPECT_NE(error_of("{nope").find("invalid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"loop": true, "phases": [{"name": "a"}]})").find("duration: missing"), std::string::npos);
}

TEST(ScenarioLoader, AHangOrAnErrorAimsAtTheFirstKPodsOrAtListedOrdinals) {
  Scenario s = parse_scenario(R"({"phases": [{
    "hangs": {"PodSandboxStatus": {"pods": [4]}, "ContainerStatus": {"pods": [1, 7], "duration": "5m"},
              "ListContainers": true},
    "errors": {"ListPodSandbox": {"code": "UNKNOWN", "pods": 3}, "PodSandboxStatus": {"code": "UNKNOWN", "pods": [2]}}}]})");
  const auto& ops = s.phases[0].ops;
  const PodSelector& four = ops[index(Op::PodSandboxStatus)].hang->pods;
  EXPECT_TRUE(four.selects(4));
  for (int other : {0, 3, 5, 40}) EXPECT_FALSE(four.selects(other)) << other;
  EXPECT_FALSE(four.selects(std::nullopt));  // an unfiltered list aims at no pod
  const auto& cs = *ops[index(Op::ContainerStatus)].hang;
  EXPECT_TRUE(cs.pods.selects(1) && cs.pods.selects(7) && !cs.pods.selects(4));
  EXPECT_EQ(cs.duration, std::chrono::minutes(5));
  EXPECT_TRUE(ops[index(Op::ListContainers)].hang->pods.every_call());  // `true` keeps hanging every call
  const PodSelector& first3 = ops[index(Op::ListPodSandbox)].errors[0].pods;
  EXPECT_TRUE(first3.selects(2) && !first3.selects(3));
  EXPECT_TRUE(ops[index(Op::PodSandboxStatus)].errors[0].pods.selects(2));
  EXPECT_FALSE(ops[index(Op::PodSandboxStatus)].errors[0].pods.selects(1));

  EXPECT_NE(error_of(R"({"phases": [{"hangs": {"PodSandboxStatus": {"pods": []}}}]})")
                .find("phases[0].hangs.PodSandboxStatus.pods: an empty list selects no pod"), std::string::npos);
  EXPECT_NE(error_of(R"({"phases": [{"hangs": {"PodSandboxStatus": {"pods": ["4"]}}}]})")
                .find("phases[0].hangs.PodSandboxStatus.pods[0]: expected an integer"), std::string::npos);
  EXPECT_NE(error_of(R"({"phases": [{"hangs": {"PodSandboxStatus": {"pod": [4]}}}]})")
                .find("hangs.PodSandboxStatus.pod: unknown key"), std::string::npos);
}

TEST(ScenarioLoader, StatusConditionsAreReadAndCheckedByName) {
  Scenario s = parse_scenario(R"({"phases": [{"conditions": {"runtime_ready": {"status": false, "reason": "R"}}}]})");
  EXPECT_FALSE(s.phases[0].conditions.runtime_ready.status);
  EXPECT_EQ(s.phases[0].conditions.runtime_ready.reason, "R");
  EXPECT_TRUE(s.phases[0].conditions.network_ready.status);
  EXPECT_NE(error_of(R"({"phases": [{"conditions": {"network": {}}}]})").find("phases[0].conditions"), std::string::npos)
      << error_of(R"({"phases": [{"conditions": {"network": {}}}]})");
}

TEST(ScenarioLoader, EveryShippedScenarioLoads) {
  size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FAKECRI_SCENARIO_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++n;
    EXPECT_NO_THROW(load_scenario_file(entry.path().string())) << entry.path();
  }
  EXPECT_GE(n, 17u);
}

TEST(PhaseSchedule, AdvancesLoopsJumpsAndHolds) {
  TimePoint t0(seconds(1000));
  PhaseSchedule loop({seconds(5), seconds(3)}, true, t0);
  EXPECT_EQ(loop.advance(t0), 0u);
  EXPECT_EQ(loop.advance(t0 + seconds(5)), 1u);
  EXPECT_EQ(loop.advance(t0 + seconds(8)), 0u);
  EXPECT_EQ(loop.advance(t0 + seconds(8 * 10 + 6)), 1u);  // many cycles at once

  PhaseSchedule once({seconds(5), std::nullopt}, false, t0);
  EXPECT_EQ(once.advance(t0 + std::chrono::hours(10)), 1u);  // last phase lasts forever

  PhaseSchedule held({seconds(5), seconds(5)}, true, t0);
  held.jump(1, t0 + seconds(1), true);
  EXPECT_EQ(held.advance(t0 + seconds(100)), 1u);
  held.resume(t0 + seconds(100));
  EXPECT_EQ(held.advance(t0 + seconds(105)), 0u);
}

}  // namespace
}  // namespace fakecri
