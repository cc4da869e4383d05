// The bodies of the node condition's writes: a strategic merge patch that
// names only plegscope's condition, and core/v1 Events as the kubelet's
// recorder writes them.
#include "condition/node_condition_api.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace plegscope {
namespace {

TimePoint at(int64_t unix_seconds) { return TimePoint(std::chrono::seconds(unix_seconds)); }

TEST(NodeConditionPatch, NamesOnlyItsOwnConditionByType) {
  NodeConditionValue c;
  c.problem = true;
  c.reason = "RuntimeHung";
  c.message = "ListContainers has been in flight for 3m4s.";
  c.heartbeat = at(1795000000);
  c.transition = at(1794999000);
  auto patch = nlohmann::json::parse(node_condition_patch(c));
  ASSERT_EQ(patch.size(), 1u);  // status only
  const auto& conditions = patch.at("status").at("conditions");
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_EQ(conditions[0].at("type"), "plegscope.io/PLEGUnhealthy");
  EXPECT_EQ(conditions[0].at("status"), "True");
  EXPECT_EQ(conditions[0].at("reason"), "RuntimeHung");
  EXPECT_EQ(conditions[0].at("lastHeartbeatTime"), "2026-11-18T11:06:40Z");
  EXPECT_EQ(conditions[0].at("lastTransitionTime"), "2026-11-18T10:50:00Z");
  c.problem = false;
  EXPECT_EQ(nlohmann::json::parse(node_condition_patch(c))["status"]["conditions"][0]["status"], "False");
}

TEST(NodeEvent, ABodyAboutTheNodeAndARepeatThatPatchesTheCount) {
  NodeEvent e;
  e.name = "worker-3.18a2b3c4d5e6f708";
  e.node = "worker-3";
  e.type = "Warning";
  e.reason = "ShimHung";
  e.message = "m";
  e.count = 3;
  e.first = at(1795000000);
  e.last = at(1795000060);
  auto body = nlohmann::json::parse(node_event_body(e));
  EXPECT_EQ(body.at("metadata").at("namespace"), "default");
  EXPECT_EQ(body.at("involvedObject").at("kind"), "Node");
  EXPECT_EQ(body.at("involvedObject").at("name"), "worker-3");
  EXPECT_EQ(body.at("source").at("component"), "plegscope");
  EXPECT_EQ(body.at("count"), 3);
  EXPECT_EQ(body.at("firstTimestamp"), "2026-11-18T11:06:40Z");
  auto repeat = nlohmann::json::parse(node_event_repeat_patch(e));
  EXPECT_EQ(repeat, (nlohmann::json{{"count", 3}, {"lastTimestamp", "2026-11-18T11:07:40Z"}, {"message", "m"}}));
}

TEST(NodeConditionPatch, TheAPIServersTimesReadBack) {
  EXPECT_EQ(parse_api_time("2026-11-18T11:06:40Z"), at(1795000000));
  EXPECT_FALSE(parse_api_time("2026-11-18T11:06:40"));
  EXPECT_FALSE(parse_api_time("yesterday"));
  std::string error;
  auto c = parse_node_condition(R"({"kind":"Node","status":{"conditions":[
      {"type":"Ready","status":"True"},
      {"type":"plegscope.io/PLEGUnhealthy","status":"True","reason":"ShimHung",
       "lastTransitionTime":"2026-11-18T10:50:00Z"}]}})", kNodeConditionType, &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->reason, "ShimHung");
  EXPECT_EQ(parse_api_time(c->last_transition_time), at(1794999000));
  EXPECT_FALSE(parse_node_condition(R"({"kind":"Node","status":{"conditions":[]}})", kNodeConditionType, &error));
  EXPECT_EQ(error, "no plegscope.io/PLEGUnhealthy condition");
}

TEST(NodeConditionWrites, AnotherNodesNameIsNeverARequest) {
  ApiServerConfig api;
  api.base_url = "https://127.0.0.1:1";
  NodeConditionValue c;
  EXPECT_EQ(patch_node_condition(api, "../nodes/worker-4", c).error, ScrapeError::bad_input);
  EXPECT_EQ(patch_node_condition(api, "Worker_3", c).error, ScrapeError::bad_input);
  NodeEvent e;
  e.node = "worker-3";
  e.name = "x/../../nodes/worker-4";
  EXPECT_EQ(patch_node_event(api, e).error, ScrapeError::bad_input);
}

}  // namespace
}  // namespace plegscope
