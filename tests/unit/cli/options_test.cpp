#include <gtest/gtest.h>

#include "config.h"
#include "http_server.h"

namespace plegscope {
namespace {

TEST(HttpDispatch, UnknownPathIs404WrongMethodIs405) {
  HttpServer server;
  server.route("/metrics", [](const HttpRequest&) { return HttpResponse::text(200, "m"); });
  EXPECT_EQ(server.dispatch({"GET", "/metrics", {}}).status, 200);
  EXPECT_EQ(server.dispatch({"HEAD", "/metrics", {}}).status, 200);
  EXPECT_EQ(server.dispatch({"POST", "/metrics", {}}).status, 405);
  EXPECT_EQ(server.dispatch({"GET", "/nope", {}}).status, 404);
}

TEST(HttpDispatch, HandlerExceptionIs500NotACrash) {
  HttpServer server;
  server.route("/boom", [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("x"); });
  EXPECT_EQ(server.dispatch({"GET", "/boom", {}}).status, 500);
}

TEST(ParseQuery, DecodesPairs) {
  auto q = parse_query("format=text&x=a%20b&flag");
  EXPECT_EQ(q["format"], "text");
  EXPECT_EQ(q["x"], "a b");
  EXPECT_EQ(q.count("flag"), 1u);
  EXPECT_TRUE(parse_query("").empty());
}

ParseOutcome parse(std::vector<const char*> args) {
  args.insert(args.begin(), "plegscope");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(CommandLine, DefaultsAreTheKubelets) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ASSERT_TRUE(out.config);
  EXPECT_EQ(out.config->relist_period, std::chrono::seconds(1));
  EXPECT_EQ(out.config->relist_threshold, std::chrono::minutes(3));
  EXPECT_EQ(out.config->runtime_request_timeout, std::chrono::minutes(2));
  EXPECT_EQ(out.config->event_channel_capacity, 1000u);
  EXPECT_EQ(out.config->listen_address, "0.0.0.0:9547");
  EXPECT_EQ(out.config->command, Config::Command::Serve);
  EXPECT_EQ(out.config->relist_backoff_max, std::chrono::seconds(10));
}

TEST(CommandLine, RelistBackoffMaxZeroTurnsItOff) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--relist-backoff-max", "0s"});
  ASSERT_TRUE(out.config);
  EXPECT_EQ(out.config->relist_backoff_max, std::chrono::seconds(0));
}

TEST(CommandLine, BadValuesExit2WithOneLineNamingTheFlag) {
  struct Case {
    std::vector<const char*> args;
    std::string flag;
  };
  for (const auto& c : std::vector<Case>{
           {{"--relist-period", "banana"}, "--relist-period"},
           {{"--relist-threshold", "-3m"}, "--relist-threshold"},
           {{"--evented-pleg", "maybe"}, "--evented-pleg"},
           {{"--event-channel-capacity", "0"}, "--event-channel-capacity"},
           {{"--container-runtime-endpoint", "tcp://1.2.3.4:1"}, "--container-runtime-endpoint"},
           {{"--listen-address", "9547"}, "--listen-address"},
           {{"--log-level", "loud"}, "--log-level"},
           {{"--relist-backoff-max", "-1s"}, "--relist-backoff-max"},
           {{"--relist-backoff-max", "soon"}, "--relist-backoff-max"},
           {{"--no-such-flag"}, "--no-such-flag"},
           {{"diagnose", "--output", "yaml"}, "--output"}}) {
    auto out = parse(c.args);
    EXPECT_FALSE(out.config) << c.flag;
    EXPECT_EQ(out.exit_code, 2) << c.flag;
    EXPECT_NE(out.message.find(c.flag), std::string::npos) << out.message;
    EXPECT_EQ(out.message.find('\n'), std::string::npos) << out.message;
  }
}

TEST(CommandLine, EnvironmentVariablesSetFlags) {
  setenv("PLEGSCOPE_RELIST_PERIOD", "250ms", 1);
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  unsetenv("PLEGSCOPE_RELIST_PERIOD");
  ASSERT_TRUE(out.config);
  EXPECT_EQ(out.config->relist_period, std::chrono::milliseconds(250));
}

TEST(CommandLine, Subcommands) {
  auto out = parse({"diagnose", "--duration", "3s", "--output", "json",
                    "--container-runtime-endpoint", "/run/x.sock"});
  ASSERT_TRUE(out.config) << out.message;
  EXPECT_EQ(out.config->command, Config::Command::Diagnose);
  EXPECT_EQ(out.config->diagnose_duration, std::chrono::seconds(3));
  EXPECT_EQ(out.config->diagnose_output, "json");
  EXPECT_EQ(parse({"version"}).config->command, Config::Command::Version);
}

}  // namespace
}  // namespace plegscope
