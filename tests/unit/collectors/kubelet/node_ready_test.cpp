#include "kubelet/node_ready.h"

#include <gtest/gtest.h>

namespace plegscope {
namespace {

TEST(NodeReady, ReadsTheReadyConditionsMessage) {
  std::string node = R"({"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"},
    "status":{"conditions":[
      {"type":"MemoryPressure","status":"False","reason":"KubeletHasSufficientMemory","message":"ok"},
      {"type":"Ready","status":"False","reason":"KubeletNotReady",
       "message":"PLEG is not healthy: pleg was last seen active 3m4.5s ago; threshold is 3m0s",
       "lastHeartbeatTime":"2026-11-24T16:00:00Z","lastTransitionTime":"2026-11-24T15:57:00Z"}]}})";
  std::string error;
  auto ready = parse_node_ready(node, &error);
  ASSERT_TRUE(ready) << error;
  EXPECT_EQ(ready->status, "False");
  EXPECT_EQ(ready->reason, "KubeletNotReady");
  EXPECT_NE(ready->message.find("pleg was last seen active"), std::string::npos);
  EXPECT_EQ(ready->last_transition_time, "2026-11-24T15:57:00Z");
}

TEST(NodeReady, RejectsWhatIsNotANodeWithReady) {
  std::string error;
  EXPECT_FALSE(parse_node_ready("not json", &error));
  EXPECT_EQ(error, "not a JSON object");
  EXPECT_FALSE(parse_node_ready(R"({"kind":"Status","code":403})", &error));
  EXPECT_EQ(error, "not a Node");
  EXPECT_FALSE(parse_node_ready(R"({"kind":"Node","status":{"conditions":[{"type":7}]}})", &error));
  EXPECT_EQ(error, "no Ready condition");
  EXPECT_FALSE(parse_node_ready(R"({"kind":"Node","status":{"conditions":"x"}})", &error));
}

TEST(NodeReady, InClusterAddressAndNodeNameCheck) {
  EXPECT_EQ(in_cluster_api_server("10.96.0.1", "443")->base_url, "https://10.96.0.1:443");
  EXPECT_EQ(in_cluster_api_server("fd00::1", "443")->base_url, "https://[fd00::1]:443");
  EXPECT_FALSE(in_cluster_api_server("", "443"));
  ApiServerConfig api;
  api.base_url = "https://127.0.0.1:1";
  auto fetched = fetch_node_ready(api, "../../secrets");
  EXPECT_EQ(fetched.outcome.error, ScrapeError::bad_input);
}

}  // namespace
}  // namespace plegscope
