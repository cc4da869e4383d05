// The client `plegscope diagnose --url` reads a running agent's /diagnose with.
#include "http/agent_client.h"

#include <gtest/gtest.h>

namespace plegscope {
namespace {

// The address of the agent whose /diagnose?format=json is fetched.
TEST(AgentClient, ParsesUrls) {
  auto u = parse_http_url("http://127.0.0.1:9547");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 9547);
  EXPECT_EQ(u->path, "");
  u = parse_http_url("http://node-3/plegscope/");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->port, 80);
  EXPECT_EQ(u->path, "/plegscope");
  EXPECT_FALSE(parse_http_url("https://x:1"));
  EXPECT_FALSE(parse_http_url("http://:80"));
  EXPECT_FALSE(parse_http_url("http://x:99999"));
  EXPECT_FALSE(parse_http_url("http://x:abc"));
}

}  // namespace
}  // namespace plegscope
