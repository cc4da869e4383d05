// The command line: flags, defaults, one-line errors, subcommands, and the
// option values each room gets from them.
#include "cli/options.h"

#include <gtest/gtest.h>

namespace plegscope {
namespace {

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

TEST(CommandLine, FlagsBecomeEachRoomsOptions) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--relist-period", "2s",
                    "--relist-threshold", "4m", "--runtime-request-timeout", "30s", "--relist-backoff-max", "0s",
                    "--event-channel-capacity", "7", "--evented-pleg", "false", "--proc-path", "/host/proc",
                    "--node-name", "worker-3", "--hang-threshold", "5s"});
  ASSERT_TRUE(out.config) << out.message;
  NodeOptions node = node_options(*out.config);
  EXPECT_EQ(node.runtime_endpoint, "unix:///x.sock");
  EXPECT_EQ(node.node_name, "worker-3");
  EXPECT_EQ(node.relist_period, std::chrono::seconds(2));
  EXPECT_EQ(node.relist_threshold, std::chrono::minutes(4));
  EXPECT_EQ(node.runtime_request_timeout, std::chrono::seconds(30));
  EXPECT_EQ(node.relist_backoff_max, Duration(0));
  EXPECT_EQ(node.event_channel_capacity, 7u);
  EXPECT_EQ(node.evented, EventedMode::Off);
  EXPECT_EQ(node.proc_path, "/host/proc");
  EXPECT_EQ(diagnosis_options(*out.config).hang_threshold, std::chrono::seconds(5));
}

TEST(CommandLine, DiagnoseUrlFlagsBecomeTheClientsOptions) {
  auto out = parse({"diagnose", "--url", "https://10.0.0.3:9547", "--tls-ca-file", "/ca.pem", "--tls-client-cert",
                    "/me.pem", "--basic-auth-user", "alice", "--basic-auth-password", "secret"});
  ASSERT_TRUE(out.config) << out.message;
  AgentClientOptions client = agent_client_options(*out.config);
  EXPECT_EQ(client.tls_ca_file, "/ca.pem");
  EXPECT_EQ(client.tls_client_cert, "/me.pem");
  EXPECT_EQ(client.basic_auth_user, "alice");
  EXPECT_EQ(client.basic_auth_password, "secret");
}

// Journal flags.
TEST(CommandLine, JournalFlagsBecomeTheNodesOptions) {
  auto defaults = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ASSERT_TRUE(defaults.config);
  NodeOptions d = node_options(*defaults.config);
  EXPECT_EQ(d.journal_path, "");  // the follower tries /var/log/journal, then /run/log/journal
  EXPECT_EQ(d.journal_kubelet_unit, "kubelet.service");
  EXPECT_EQ(d.journal_runtime_units,
            (std::vector<std::string>{"containerd.service", "crio.service", "docker.service"}));

  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--journal-path",
                    "/host/var/log/journal", "--journal-kubelet-unit", "snap.kubelite.daemon-kubelite.service",
                    "--journal-runtime-units", "k3s.service"});
  ASSERT_TRUE(out.config) << out.message;
  NodeOptions node = node_options(*out.config);
  EXPECT_EQ(node.journal_path, "/host/var/log/journal");
  EXPECT_EQ(node.journal_kubelet_unit, "snap.kubelite.daemon-kubelite.service");
  EXPECT_EQ(node.journal_runtime_units, (std::vector<std::string>{"k3s.service"}));

  setenv("PLEGSCOPE_JOURNAL_RUNTIME_UNITS", "containerd.service,cri-o.service", 1);
  auto env = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  unsetenv("PLEGSCOPE_JOURNAL_RUNTIME_UNITS");
  ASSERT_TRUE(env.config) << env.message;
  EXPECT_EQ(env.config->journal_runtime_units,
            (std::vector<std::string>{"containerd.service", "cri-o.service"}));
}

TEST(CommandLine, BadJournalUnitsExit2WithOneLine) {
  for (const auto& c : std::vector<std::pair<std::vector<const char*>, std::string>>{
           {{"--journal-kubelet-unit", ""}, "--journal-kubelet-unit"},
           {{"--journal-kubelet-unit", "kubelet.service,containerd.service"}, "--journal-kubelet-unit"},
           {{"--journal-runtime-units", ""}, "--journal-runtime-units"},
           {{"--journal-runtime-units", "containerd.service,,crio.service"}, "--journal-runtime-units"},
           {{"--journal-runtime-units", "containerd.service,"}, "--journal-runtime-units"},
           {{"--journal-runtime-units", "a service"}, "--journal-runtime-units"}}) {
    auto args = c.first;
    args.insert(args.begin(), {"--container-runtime-endpoint", "unix:///x.sock"});
    auto out = parse(args);
    EXPECT_FALSE(out.config) << c.second;
    EXPECT_EQ(out.exit_code, 2) << c.second;
    EXPECT_NE(out.message.find(c.second), std::string::npos) << out.message;
    EXPECT_EQ(out.message.find('\n'), std::string::npos) << out.message;
  }
}

}  // namespace
}  // namespace plegscope
