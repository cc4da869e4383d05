// The command line: flags, defaults, one-line errors, subcommands, and the
// option values each room gets from them.
#include "cli/options.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace plegscope {
namespace {

ParseOutcome parse(std::vector<const char*> args) {
  args.insert(args.begin(), "plegscope");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(CommandLine, DefaultsAreTheKubelets) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ASSERT_TRUE(out.config);
  EXPECT_EQ(out.config->node.pleg.relist_period, std::chrono::seconds(1));
  EXPECT_EQ(out.config->node.pleg.relist_threshold, std::chrono::minutes(3));
  EXPECT_EQ(out.config->node.runtime.request_timeout, std::chrono::minutes(2));
  EXPECT_EQ(out.config->node.pleg.event_channel_capacity, 1000u);
  EXPECT_EQ(out.config->listen_address, "0.0.0.0:9547");
  EXPECT_EQ(out.config->command, Config::Command::Serve);
  EXPECT_EQ(out.config->node.pleg.relist_backoff_max, std::chrono::seconds(10));
}

TEST(CommandLine, RelistBackoffMaxZeroTurnsItOff) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--relist-backoff-max", "0s"});
  ASSERT_TRUE(out.config);
  EXPECT_EQ(out.config->node.pleg.relist_backoff_max, std::chrono::seconds(0));
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
           {{"--metrics-detail", "verbose"}, "--metrics-detail"},
           {{"--event-channel-capacity", "0"}, "--event-channel-capacity"},
           {{"--container-runtime-endpoint", "tcp://1.2.3.4:1"}, "--container-runtime-endpoint"},
           {{"--listen-address", "9547"}, "--listen-address"},
           {{"--log-level", "loud"}, "--log-level"},
           {{"--relist-backoff-max", "-1s"}, "--relist-backoff-max"},
           {{"--relist-backoff-max", "soon"}, "--relist-backoff-max"},
           {{"--no-such-flag"}, "--no-such-flag"},
           {{"diagnose", "--output", "yaml"}, "--output"},
           // hidden, for fixture trees
           {{"--host-scan-interval", "often"}, "--host-scan-interval"},
           {{"--host-clock-ticks", "-5"}, "--host-clock-ticks"},
           {{"--host-diskstats-before", "/no/such/file"}, "--host-diskstats-before"}}) {
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
  EXPECT_EQ(out.config->node.pleg.relist_period, std::chrono::milliseconds(250));
}

TEST(CommandLine, Subcommands) {
  auto out = parse({"diagnose", "--duration", "3s", "--output", "json",
                    "--container-runtime-endpoint", "/run/x.sock"});
  ASSERT_TRUE(out.config) << out.message;
  EXPECT_EQ(out.config->command, Config::Command::Diagnose);
  EXPECT_EQ(out.config->diagnose.duration, std::chrono::seconds(3));
  EXPECT_EQ(out.config->diagnose.output, "json");
  EXPECT_EQ(parse({"version"}).config->command, Config::Command::Version);
}

TEST(CommandLine, FlagsBecomeEachRoomsOptions) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--relist-period", "2s",
                    "--relist-threshold", "4m", "--runtime-request-timeout", "30s", "--relist-backoff-max", "0s",
                    "--event-channel-capacity", "7", "--evented-pleg", "false", "--proc-path", "/host/proc",
                    "--node-name", "worker-3", "--hang-threshold", "5s"});
  ASSERT_TRUE(out.config) << out.message;
  NodeOptions node = out.config->node;
  EXPECT_EQ(node.runtime.endpoint, "unix:///x.sock");
  EXPECT_EQ(node.node_name, "worker-3");
  EXPECT_EQ(node.pleg.relist_period, std::chrono::seconds(2));
  EXPECT_EQ(node.pleg.relist_threshold, std::chrono::minutes(4));
  EXPECT_EQ(node.runtime.request_timeout, std::chrono::seconds(30));
  EXPECT_EQ(node.pleg.relist_backoff_max, Duration(0));
  EXPECT_EQ(node.pleg.event_channel_capacity, 7u);
  EXPECT_EQ(node.pleg.evented, EventedMode::Off);
  EXPECT_EQ(node.host.proc_path, "/host/proc");
  EXPECT_EQ(out.config->diagnosis.hang_threshold, std::chrono::seconds(5));
}

// The lean bill is the default; full detail is asked for.
TEST(CommandLine, MetricsDetailReachesTheNode) {
  auto lean = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ASSERT_TRUE(lean.config) << lean.message;
  EXPECT_EQ(lean.config->node.metric_detail, MetricDetail::kLean);
  auto full = parse({"--container-runtime-endpoint", "unix:///x.sock", "--metrics-detail", "full"});
  ASSERT_TRUE(full.config) << full.message;
  EXPECT_EQ(full.config->node.metric_detail, MetricDetail::kFull);
}

// The host evidence's flags reach the Node.
TEST(CommandLine, HostFlagsBecomeNodeOptions) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--sys-path", "/host/sys", "--runtime-root",
                    "/var/lib/docker", "--hang-threshold", "4s", "--host-clock-ticks", "100",
                    "--host-scan-interval", "2s"});
  ASSERT_TRUE(out.config) << out.message;
  NodeOptions node = out.config->node;
  EXPECT_EQ(node.host.sys_path, "/host/sys");
  EXPECT_EQ(node.host.runtime_root, "/var/lib/docker");
  EXPECT_EQ(node.hang_threshold, std::chrono::seconds(4));  // a call this old triggers a scan
  EXPECT_EQ(node.host.clock_ticks_per_second, 100);
  EXPECT_EQ(node.host.interval, std::chrono::seconds(2));
  NodeOptions defaults = parse({"--container-runtime-endpoint", "unix:///x.sock"}).config->node;
  EXPECT_EQ(defaults.host.sys_path, "/sys");
  EXPECT_EQ(defaults.host.runtime_root, "");  // resolved from the daemons seen
  EXPECT_EQ(defaults.host.interval, std::chrono::seconds(5));
}

TEST(CommandLine, DiagnoseUrlFlagsBecomeTheClientsOptions) {
  auto out = parse({"diagnose", "--url", "https://10.0.0.3:9547", "--tls-ca-file", "/ca.pem", "--tls-client-cert",
                    "/me.pem", "--basic-auth-user", "alice", "--basic-auth-password", "secret"});
  ASSERT_TRUE(out.config) << out.message;
  AgentClientOptions client = out.config->diagnose.client;
  EXPECT_EQ(client.tls_ca_file, "/ca.pem");
  EXPECT_EQ(client.tls_client_cert, "/me.pem");
  EXPECT_EQ(client.basic_auth_user, "alice");
  EXPECT_EQ(client.basic_auth_password, "secret");
}

// Journal flags.
TEST(CommandLine, JournalFlagsBecomeTheNodesOptions) {
  auto defaults = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ASSERT_TRUE(defaults.config);
  NodeOptions d = defaults.config->node;
  EXPECT_EQ(d.journal.journal_path, "");  // the follower tries /var/log/journal, then /run/log/journal
  EXPECT_EQ(d.journal.units.kubelet_unit, "kubelet.service");
  EXPECT_EQ(d.journal.units.runtime_units,
            (std::vector<std::string>{"containerd.service", "crio.service", "docker.service"}));

  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--journal-path",
                    "/host/var/log/journal", "--journal-kubelet-unit", "snap.kubelite.daemon-kubelite.service",
                    "--journal-runtime-units", "k3s.service"});
  ASSERT_TRUE(out.config) << out.message;
  NodeOptions node = out.config->node;
  EXPECT_EQ(node.journal.journal_path, "/host/var/log/journal");
  EXPECT_EQ(node.journal.units.kubelet_unit, "snap.kubelite.daemon-kubelite.service");
  EXPECT_EQ(node.journal.units.runtime_units, (std::vector<std::string>{"k3s.service"}));

  setenv("PLEGSCOPE_JOURNAL_RUNTIME_UNITS", "containerd.service,cri-o.service", 1);
  auto env = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  unsetenv("PLEGSCOPE_JOURNAL_RUNTIME_UNITS");
  ASSERT_TRUE(env.config) << env.message;
  EXPECT_EQ(env.config->node.journal.units.runtime_units,
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

// The kubelet and the runtime's metrics.
TEST(CommandLine, KubeletEndpointDefaultsToNodeIpElseOff) {
  ::unsetenv("NODE_IP");
  auto off = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ASSERT_TRUE(off.config);
  EXPECT_EQ(off.config->node.kubelet.endpoint, "");
  EXPECT_EQ(off.config->node.runtime_metrics.endpoint, "");
  EXPECT_FALSE(off.config->node.kubelet.insecure_skip_tls_verify);
  EXPECT_EQ(off.config->node.kubelet.token_file, "/var/run/secrets/kubernetes.io/serviceaccount/token");
  EXPECT_EQ(off.config->node.kubelet.ca_file, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt");
  ::setenv("NODE_IP", "10.0.0.5", 1);
  auto on = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ::setenv("NODE_IP", "fd00::5", 1);
  auto v6 = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  auto disabled = parse({"--container-runtime-endpoint", "unix:///x.sock", "--kubelet-endpoint", "off"});
  ::unsetenv("NODE_IP");
  ASSERT_TRUE(on.config && v6.config && disabled.config);
  EXPECT_EQ(on.config->node.kubelet.endpoint, "https://10.0.0.5:10250");
  EXPECT_EQ(v6.config->node.kubelet.endpoint, "https://[fd00::5]:10250");
  EXPECT_EQ(disabled.config->node.kubelet.endpoint, "");
}

TEST(CommandLine, KubeletFlagsReachTheNode) {
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--kubelet-endpoint", "https://127.0.0.1:10250",
                    "--kubelet-token-file", "/t", "--kubelet-ca-file", "/ca", "--kubelet-insecure-skip-tls-verify",
                    "--kubelet-version", "v1.36.1", "--runtime-metrics-endpoint", "http://127.0.0.1:1338/v1/metrics"});
  ASSERT_TRUE(out.config) << out.message;
  NodeOptions o = out.config->node;
  EXPECT_EQ(o.kubelet.endpoint, "https://127.0.0.1:10250");
  EXPECT_EQ(o.kubelet.token_file, "/t");
  EXPECT_EQ(o.kubelet.ca_file, "/ca");
  EXPECT_TRUE(o.kubelet.insecure_skip_tls_verify);
  EXPECT_EQ(o.kubelet.version, "v1.36.1");
  EXPECT_EQ(o.runtime_metrics.endpoint, "http://127.0.0.1:1338/v1/metrics");
}

TEST(CommandLine, ApiServerFlagsAndEnvironmentReachTheNode) {
  ::setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
  ::setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", "--api-server-token-file", "/api-token",
                    "--api-server-ca-file", "/api-ca"});
  auto defaults = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ::unsetenv("KUBERNETES_SERVICE_HOST");
  ::unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(out.config && defaults.config) << out.message;
  NodeOptions o = out.config->node;
  EXPECT_EQ(o.api_server.host, "10.96.0.1");
  EXPECT_EQ(o.api_server.port, "443");
  EXPECT_EQ(o.api_server.token_file, "/api-token");
  EXPECT_EQ(o.api_server.ca_file, "/api-ca");
  EXPECT_EQ(defaults.config->node.api_server.ca_file, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt");
}

TEST(CommandLine, BadKubeletValuesExit2NamingTheFlag) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--kubelet-endpoint", "10.0.0.5:10250"},
           {"--runtime-metrics-endpoint", "unix:///run/containerd/metrics.sock"},
           {"--kubelet-version", "banana"}}) {
    auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", flag.c_str(), value.c_str()});
    EXPECT_FALSE(out.config) << flag;
    EXPECT_EQ(out.exit_code, 2) << flag;
    EXPECT_NE(out.message.find(flag), std::string::npos) << out.message;
    EXPECT_EQ(out.message.find('\n'), std::string::npos) << out.message;
  }
}

TEST(CommandLine, NodeConditionIsOffByDefaultAndItsDurationsReachTheWriter) {
  auto defaults = parse({"--container-runtime-endpoint", "unix:///x.sock"});
  ASSERT_TRUE(defaults.config) << defaults.message;
  EXPECT_FALSE(defaults.config->node_condition);
  NodeConditionOptions d = defaults.config->condition;
  EXPECT_EQ(d.policy.hold, std::chrono::seconds(30));
  EXPECT_EQ(d.policy.clear_after, std::chrono::minutes(2));
  EXPECT_EQ(d.policy.heartbeat, std::chrono::minutes(5));
  auto on = parse({"--container-runtime-endpoint", "unix:///x.sock", "--node-condition", "--node-condition-hold",
                   "0s", "--node-condition-clear-after", "90s", "--node-condition-min-interval", "10s",
                   "--node-condition-heartbeat", "1m"});
  ASSERT_TRUE(on.config) << on.message;
  EXPECT_TRUE(on.config->node_condition);
  NodeConditionOptions o = on.config->condition;
  EXPECT_EQ(o.policy.hold, std::chrono::seconds(0));
  EXPECT_EQ(o.policy.clear_after, std::chrono::seconds(90));
  EXPECT_EQ(o.policy.min_interval, std::chrono::seconds(10));
  EXPECT_EQ(o.policy.heartbeat, std::chrono::minutes(1));
}

TEST(CommandLine, BadNodeConditionDurationsExit2NamingTheFlag) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--node-condition-hold", "soon"},
           {"--node-condition-clear-after", "0s"},  // would clear at once, before any verdict holds
           {"--node-condition-heartbeat", "5 minutes"}}) {
    auto out = parse({"--container-runtime-endpoint", "unix:///x.sock", flag.c_str(), value.c_str()});
    EXPECT_FALSE(out.config) << flag;
    EXPECT_EQ(out.exit_code, 2) << flag;
    EXPECT_NE(out.message.find(flag + ": invalid duration"), std::string::npos) << out.message;
    EXPECT_EQ(out.message.find('\n'), std::string::npos) << out.message;
  }
}

}  // namespace
}  // namespace plegscope
