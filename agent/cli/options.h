#pragma once
// Command line and environment: the §3 flags, parsed once at start-up, and
// turned into the option values of the rooms they configure.
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "http/agent_client.h"
#include "http/web/web_config.h"
#include "node/node_condition_writer.h"
#include "node/node_options.h"

namespace plegscope {

struct Config {
  enum class Command { Serve, Diagnose, Version } command = Command::Serve;

  std::string runtime_endpoint;  // resolved: auto-detected when not given
  bool endpoint_auto_detected = false;
  std::string listen_address = "0.0.0.0:9547";
  Duration relist_period = std::chrono::seconds(1);
  Duration relist_threshold = std::chrono::minutes(3);
  Duration runtime_request_timeout = std::chrono::minutes(2);
  size_t event_channel_capacity = 1000;
  EventedMode evented = EventedMode::Off;  // the kubelet's default on every release
  MetricDetail metric_detail = MetricDetail::kLean;
  Duration hang_threshold = std::chrono::seconds(10);
  Duration relist_backoff_max = std::chrono::seconds(10);  // 0: never stretch the period
  std::string proc_path = "/proc";
  // Host evidence (issue 17).
  std::string sys_path = "/sys";
  std::string runtime_root;        // "" = resolved from the daemons seen
  long host_clock_ticks = 0;       // hidden, for fixture trees: their CLK_TCK (0: the host's)
  Duration host_scan_interval = std::chrono::seconds(5);  // hidden
  bool kernel_stacks = false;  // --kernel-stacks
  std::string host_diskstats_before;  // hidden: fixture trees' diskstats.before
  std::string node_name;
  std::string log_level = "info";
  std::string web_config_file;
  WebConfig web;  // loaded from web_config_file at parse time
  size_t event_log_size = 1000;
  size_t relist_history = 600;
  // Journal: "" for /var/log/journal, then /run/log/journal.
  std::string journal_path;
  std::string journal_kubelet_unit = "kubelet.service";
  std::vector<std::string> journal_runtime_units = {"containerd.service", "crio.service",
                                                    "docker.service"};

  // The kubelet and the runtime's metrics (issue 18); "" when off.
  std::string kubelet_endpoint;
  std::string kubelet_token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string kubelet_ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  bool kubelet_insecure_skip_tls_verify = false;
  std::string kubelet_version;
  std::string runtime_metrics_endpoint;
  std::string api_server_host;  // $KUBERNETES_SERVICE_HOST, for the Node's Ready message
  std::string api_server_port;
  std::string api_server_token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string api_server_ca_file = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  // The node condition and its Events (off by default).
  bool node_condition = false;
  Duration node_condition_hold = std::chrono::seconds(30);
  Duration node_condition_clear_after = std::chrono::minutes(2);
  Duration node_condition_min_interval = std::chrono::seconds(30);
  Duration node_condition_heartbeat = std::chrono::minutes(5);

  // diagnose
  Duration diagnose_duration = std::chrono::seconds(10);
  std::string diagnose_output = "text";
  std::string diagnose_url;
  // diagnose --url https://... against an agent with a web config
  std::string tls_ca_file;      // verifies the agent's certificate
  std::string tls_client_cert;  // PEM with certificate and key, for mutual TLS
  std::string basic_auth_user;
  std::string basic_auth_password;
};

struct ParseOutcome {
  std::optional<Config> config;  // empty: exit with `exit_code` after printing `message`
  int exit_code = 0;
  std::string message;  // one line for stderr (or help text for stdout when exit_code == 0)
};

// The candidate sockets tried, in order, when no endpoint is given.
extern const std::vector<std::string> kDefaultRuntimeEndpoints;

// Parses argv (and PLEGSCOPE_* environment variables). Never throws, never exits.
ParseOutcome parse_command_line(int argc, const char* const* argv);

// The flags each room reads, and nothing more.
NodeOptions node_options(const Config& config);
DiagnosisOptions diagnosis_options(const Config& config);
NodeConditionOptions node_condition_options(const Config& config);
AgentClientOptions agent_client_options(const Config& config);

}  // namespace plegscope
