#include "cli/options.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <cstdlib>

#include "common/go_duration.h"
#include "cri/grpc_runtime_client.h"
#include "kubelet/kubelet_metrics.h"
#include "cri/runtime_socket.h"

namespace plegscope {

const std::vector<std::string> kDefaultRuntimeEndpoints = {
    "unix:///run/containerd/containerd.sock", "unix:///run/crio/crio.sock",
    "unix:///var/run/cri-dockerd.sock"};

namespace {

struct UsageError {
  std::string message;
};

Duration duration_flag(const std::string& flag, const std::string& text, bool allow_zero = false) {
  auto d = parse_go_duration(text);
  if (!d || d->count() < 0 || (!allow_zero && d->count() == 0))
    throw UsageError{flag + ": invalid duration \"" + text +
                     "\" (expected a positive Go duration such as 500ms, 1s, 3m, 1h30m)"};
  return *d;
}

std::string detect_endpoint() {
  for (const auto& candidate : kDefaultRuntimeEndpoints) {
    SocketState state = runtime_socket_state(candidate);
    if (state == SocketState::kSocket || state == SocketState::kNotASocket) return candidate;
  }
  return kDefaultRuntimeEndpoints.front();
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// --kubelet-endpoint's default: the node's own kubelet when the DaemonSet
// passes NODE_IP (status.hostIP), else off.
std::string default_kubelet_endpoint() {
  std::string ip = env_or_empty("NODE_IP");
  if (ip.empty()) return "off";
  if (ip.find(':') != std::string::npos) ip = "[" + ip + "]";
  return "https://" + ip + ":10250";
}

// "off" -> ""; else an http(s) URL.
std::string url_flag(const std::string& flag, const std::string& value, const char* example) {
  if (value == "off" || value.empty()) return "";
  if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0)
    throw UsageError{flag + ": invalid value \"" + value + "\" (expected off or a URL such as " + example + ")"};
  return value;
}

std::string default_node_name() {
  if (const char* env = std::getenv("NODE_NAME"); env && *env) return env;
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) == 0) return host;
  return "unknown";
}

}  // namespace

ParseOutcome parse_command_line(int argc, const char* const* argv) {
  Config c;
  std::string endpoint, relist_period = "1s", relist_threshold = "3m", request_timeout = "2m",
                        evented = "false", hang_threshold = "10s", duration = "10s",
                        backoff_max = "10s", metrics_detail = "lean";
  // The node condition (--node-condition): see node/condition_policy.h.
  std::string condition_hold = "30s", condition_clear_after = "2m", condition_min_interval = "30s",
              condition_heartbeat = "5m";
  int capacity = 1000;
  std::string kubelet_endpoint = default_kubelet_endpoint(), runtime_metrics_endpoint = "off";

  CLI::App app{"plegscope: explains why the kubelet's PLEG is (or is about to be) unhealthy",
               "plegscope"};
  app.fallthrough();
  app.add_option("--container-runtime-endpoint", endpoint,
                 "CRI socket (default: first existing of the containerd, CRI-O, cri-dockerd sockets)")
      ->envname("PLEGSCOPE_CONTAINER_RUNTIME_ENDPOINT");
  app.add_option("--listen-address", c.listen_address, "HTTP address for /metrics and reports")
      ->envname("PLEGSCOPE_LISTEN_ADDRESS");
  app.add_option("--relist-period", relist_period, "relist period, as the kubelet (1s)")
      ->envname("PLEGSCOPE_RELIST_PERIOD");
  app.add_option("--relist-threshold", relist_threshold, "PLEG health threshold (3m)")
      ->envname("PLEGSCOPE_RELIST_THRESHOLD");
  app.add_option("--runtime-request-timeout", request_timeout, "deadline of every CRI call (2m)")
      ->envname("PLEGSCOPE_RUNTIME_REQUEST_TIMEOUT");
  app.add_option("--event-channel-capacity", capacity, "PLEG event channel capacity (1000)")
      ->envname("PLEGSCOPE_EVENT_CHANNEL_CAPACITY");
  app.add_option("--evented-pleg", evented, "false (default: the kubelet's generic relist, every release's default), true (only beside a kubelet "
                 "running the EventedPLEG gate) or auto (beside a readable kubelet: evented only where it runs the EventedPLEG gate before "
                 "1.37; else evented whenever the runtime serves GetContainerEvents)")
      ->envname("PLEGSCOPE_EVENTED_PLEG");
  app.add_option("--metrics-detail", metrics_detail,
                 "lean (default: the latency series the shipped alerts and dashboards read) or full (every CRI "
                 "operation's latency, fine buckets)")
      ->envname("PLEGSCOPE_METRICS_DETAIL");
  app.add_option("--hang-threshold", hang_threshold, "a CRI call in flight longer is hung (10s)")
      ->envname("PLEGSCOPE_HANG_THRESHOLD");
  app.add_option("--relist-backoff-max", backoff_max,
                 "longest the relist period stretches while the runtime struggles; 0s: off (10s)")
      ->envname("PLEGSCOPE_RELIST_BACKOFF_MAX");
  app.add_option("--proc-path", c.proc_path, "where node pressure is read (/proc)")
      ->envname("PLEGSCOPE_PROC_PATH");
  // Host evidence (issue 17).
  app.add_option("--sys-path", c.sys_path, "where cgroup pid limits are read (/sys; /host/sys in the DaemonSet)")
      ->envname("PLEGSCOPE_SYS_PATH");
  app.add_option("--runtime-root", c.runtime_root,
                 "the runtime's data directory, whose disk latency is read (default: the running runtime's, else the "
                 "first existing of /var/lib/containerd, /var/lib/containers/storage, /var/lib/docker)")
      ->envname("PLEGSCOPE_RUNTIME_ROOT");
  // Hidden, for fixture trees (tests/fixtures/host): their CLK_TCK, a scan
  // interval, and the diskstats sample taken 10 s before theirs.
  std::string host_scan_interval = "5s";
  app.add_option("--host-clock-ticks", c.host_clock_ticks, "CLK_TCK of the --proc-path tree (tests)")->group("");
  app.add_option("--host-scan-interval", host_scan_interval, "host scan interval (5s)")->group("");
  app.add_option("--host-diskstats-before", c.host_diskstats_before,
                 "diskstats sample taken 10s before the first scan (tests)")
      ->group("");
  app.add_option("--node-name", c.node_name, "node name in reports ($NODE_NAME or hostname)")
      ->envname("PLEGSCOPE_NODE_NAME");
  app.add_option("--log-level", c.log_level, "trace, debug, info, warn, error")
      ->envname("PLEGSCOPE_LOG_LEVEL");
  app.add_option("--web-config-file", c.web_config_file,
                 "TLS, basic auth and headers, in the Prometheus exporter-toolkit format")
      ->envname("PLEGSCOPE_WEB_CONFIG_FILE");

  // Journal.
  std::string journal_runtime_units = "containerd.service,crio.service,docker.service";
  app.add_option("--journal-path", c.journal_path,
                 "systemd journal directory for the kubelet's and the runtime's log marks "
                 "(default: /var/log/journal, then /run/log/journal)")
      ->envname("PLEGSCOPE_JOURNAL_PATH");
  app.add_option("--journal-kubelet-unit", c.journal_kubelet_unit,
                 "the kubelet's systemd unit in the journal (kubelet.service)")
      ->envname("PLEGSCOPE_JOURNAL_KUBELET_UNIT");
  app.add_option("--journal-runtime-units", journal_runtime_units,
                 "the runtime's systemd units, comma-separated "
                 "(containerd.service,crio.service,docker.service)")
      ->envname("PLEGSCOPE_JOURNAL_RUNTIME_UNITS");
  // The kubelet and the runtime's metrics (issue 18).
  app.add_option("--kubelet-endpoint", kubelet_endpoint,
                 "base URL of the kubelet, /metrics is read from it; off disables "
                 "(default https://$NODE_IP:10250 when NODE_IP is set, else off)")
      ->envname("PLEGSCOPE_KUBELET_ENDPOINT");
  app.add_option("--kubelet-token-file", c.kubelet_token_file, "bearer token for the kubelet (the ServiceAccount token)")
      ->envname("PLEGSCOPE_KUBELET_TOKEN_FILE");
  app.add_option("--kubelet-ca-file", c.kubelet_ca_file,
                 "CA that signs the kubelet's serving certificate (the ServiceAccount ca.crt); host name or IP verified")
      ->envname("PLEGSCOPE_KUBELET_CA_FILE");
  app.add_flag("--kubelet-insecure-skip-tls-verify", c.kubelet_insecure_skip_tls_verify,
               "do not verify the kubelet's certificate (the report says so)")
      ->envname("PLEGSCOPE_KUBELET_INSECURE_SKIP_TLS_VERIFY");
  app.add_option("--kubelet-version", c.kubelet_version,
                 "which kubelet's PLEG model to follow when its kubernetes_build_info cannot be read, e.g. v1.35.4")
      ->envname("PLEGSCOPE_KUBELET_VERSION");
  // The API server is found from KUBERNETES_SERVICE_HOST/_PORT, as client-go's in-cluster config does.
  app.add_option("--api-server-token-file", c.api_server_token_file,
                 "bearer token for the API server's get nodes/<node> (the ServiceAccount token)")
      ->envname("PLEGSCOPE_API_SERVER_TOKEN_FILE");
  app.add_option("--api-server-ca-file", c.api_server_ca_file,
                 "CA that signs the API server's certificate (the ServiceAccount ca.crt)")
      ->envname("PLEGSCOPE_API_SERVER_CA_FILE");
  app.add_flag("--kernel-stacks", c.kernel_stacks,
               "read the kernel stacks of the runtime's threads in D with a BPF task iterator, once per host scan "
               "(needs BTF, CAP_BPF and CAP_PERFMON, and hostPID: deploy/components/kernel-stacks); off by default")
      ->envname("PLEGSCOPE_KERNEL_STACKS");
  app.add_flag("--node-condition", c.node_condition,
               "write the condition plegscope.io/PLEGUnhealthy and Events on the agent's own Node through the API "
               "server (needs deploy/components/node-condition's RBAC); off by default")
      ->envname("PLEGSCOPE_NODE_CONDITION");
  app.add_option("--node-condition-hold", condition_hold,
                 "at risk with a critical cause (a hung call, a shim in D) for this long sets the condition True; "
                 "unhealthy sets it at once (30s)")
      ->envname("PLEGSCOPE_NODE_CONDITION_HOLD");
  app.add_option("--node-condition-clear-after", condition_clear_after,
                 "healthy for this long sets the condition False (2m); also the wait before the first False")
      ->envname("PLEGSCOPE_NODE_CONDITION_CLEAR_AFTER");
  app.add_option("--node-condition-min-interval", condition_min_interval,
                 "at most one change of status or reason per this interval while flapping (30s)")
      ->envname("PLEGSCOPE_NODE_CONDITION_MIN_INTERVAL");
  app.add_option("--node-condition-heartbeat", condition_heartbeat,
                 "the condition is written again this often when nothing changes (5m)")
      ->envname("PLEGSCOPE_NODE_CONDITION_HEARTBEAT");
  app.add_option("--runtime-metrics-endpoint", runtime_metrics_endpoint,
                 "the runtime's own metrics page (containerd [metrics] address + /v1/metrics, CRI-O enable_metrics); "
                 "off (default) disables")
      ->envname("PLEGSCOPE_RUNTIME_METRICS_ENDPOINT");

  auto* serve = app.add_subcommand("serve", "run the agent (the default)");
  auto* diagnose = app.add_subcommand("diagnose", "relist for a while, then print a report");
  diagnose->add_option("--duration", duration, "how long to relist before reporting (10s)")
      ->envname("PLEGSCOPE_DIAGNOSE_DURATION");
  diagnose->add_option("--output", c.diagnose_output, "text or json")
      ->envname("PLEGSCOPE_DIAGNOSE_OUTPUT");
  diagnose->add_option("--url", c.diagnose_url,
                       "print the report of a running agent, e.g. http://127.0.0.1:9547");
  diagnose->add_option("--tls-ca-file", c.tls_ca_file, "with an https --url: CA that signed the agent's certificate")
      ->envname("PLEGSCOPE_TLS_CA_FILE");
  diagnose->add_option("--tls-client-cert", c.tls_client_cert,
                       "with an https --url: PEM file holding a client certificate and its key")
      ->envname("PLEGSCOPE_TLS_CLIENT_CERT");
  diagnose->add_option("--basic-auth-user", c.basic_auth_user, "with --url: user for basic authentication")
      ->envname("PLEGSCOPE_BASIC_AUTH_USER");
  diagnose->add_option("--basic-auth-password", c.basic_auth_password,
                       "with --url: password (prefer the environment variable)")
      ->envname("PLEGSCOPE_BASIC_AUTH_PASSWORD");
  auto* version = app.add_subcommand("version", "print the version");
  app.require_subcommand(0, 1);

  ParseOutcome out;
  try {
    app.parse(argc, argv);
    if (*diagnose) c.command = Config::Command::Diagnose;
    if (*version) c.command = Config::Command::Version;
    (void)serve;
    c.relist_period = duration_flag("--relist-period", relist_period);
    c.relist_threshold = duration_flag("--relist-threshold", relist_threshold);
    c.runtime_request_timeout = duration_flag("--runtime-request-timeout", request_timeout);
    c.hang_threshold = duration_flag("--hang-threshold", hang_threshold);
    c.relist_backoff_max = duration_flag("--relist-backoff-max", backoff_max, true);
    c.node_condition_hold = duration_flag("--node-condition-hold", condition_hold, true);
    c.node_condition_clear_after = duration_flag("--node-condition-clear-after", condition_clear_after);
    c.node_condition_min_interval = duration_flag("--node-condition-min-interval", condition_min_interval, true);
    c.node_condition_heartbeat = duration_flag("--node-condition-heartbeat", condition_heartbeat);
    c.diagnose_duration = duration_flag("--duration", duration);
    c.host_scan_interval = duration_flag("--host-scan-interval", host_scan_interval);  // issue 17
    if (c.host_clock_ticks < 0 || c.host_clock_ticks > 100000)
      throw UsageError{"--host-clock-ticks: invalid value " + std::to_string(c.host_clock_ticks) +
                       " (expected 0, the host's, or the tree's CLK_TCK such as 100)"};
    if (!c.host_diskstats_before.empty() && !std::ifstream(c.host_diskstats_before))
      throw UsageError{"--host-diskstats-before: cannot read \"" + c.host_diskstats_before + "\""};
    if (capacity < 1)
      throw UsageError{"--event-channel-capacity: must be at least 1, got " +
                       std::to_string(capacity)};
    c.event_channel_capacity = static_cast<size_t>(capacity);
    if (evented == "auto") c.evented = EventedMode::Auto;
    else if (evented == "true") c.evented = EventedMode::On;
    else if (evented == "false") c.evented = EventedMode::Off;
    else throw UsageError{"--evented-pleg: invalid value \"" + evented + "\" (expected auto, true or false)"};
    if (!parse_metric_detail(metrics_detail, c.metric_detail))
      throw UsageError{"--metrics-detail: invalid value \"" + metrics_detail + "\" (expected lean or full)"};
    static const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
    if (std::find(std::begin(kLevels), std::end(kLevels), c.log_level) == std::end(kLevels))
      throw UsageError{"--log-level: invalid value \"" + c.log_level +
                       "\" (expected trace, debug, info, warn or error)"};
    if (c.diagnose_output != "text" && c.diagnose_output != "json")
      throw UsageError{"--output: invalid value \"" + c.diagnose_output + "\" (expected text or json)"};
    bool https = c.diagnose_url.rfind("https://", 0) == 0;
    if (!c.diagnose_url.empty() && c.diagnose_url.rfind("http://", 0) != 0 && !https)
      throw UsageError{"--url: invalid value \"" + c.diagnose_url +
                       "\" (expected http://HOST:PORT or https://HOST:PORT of a running plegscope)"};
    if (https && c.tls_ca_file.empty())
      throw UsageError{"--tls-ca-file: required with an https --url (the CA that signed the agent's certificate)"};
    if (!c.web_config_file.empty() && c.command == Config::Command::Serve) {
      auto web = load_web_config(c.web_config_file);
      if (!web.config) throw UsageError{"--web-config-file: " + web.error};
      c.web = *web.config;
    }
    if (c.listen_address.find(':') == std::string::npos)
      throw UsageError{"--listen-address: invalid value \"" + c.listen_address +
                       "\" (expected HOST:PORT, e.g. 0.0.0.0:9547)"};
    // Journal.
    if (c.journal_kubelet_unit.empty() ||
        c.journal_kubelet_unit.find_first_of(" ,\t\n") != std::string::npos)
      throw UsageError{"--journal-kubelet-unit: invalid value \"" + c.journal_kubelet_unit +
                       "\" (expected one systemd unit name such as kubelet.service)"};
    c.journal_runtime_units.clear();
    for (size_t from = 0; from <= journal_runtime_units.size();) {
      size_t comma = std::min(journal_runtime_units.find(',', from), journal_runtime_units.size());
      std::string unit = journal_runtime_units.substr(from, comma - from);
      if (unit.empty() || unit.find_first_of(" \t\n") != std::string::npos)
        throw UsageError{"--journal-runtime-units: invalid value \"" + journal_runtime_units +
                         "\" (expected unit names separated by commas, such as "
                         "containerd.service,crio.service)"};
      c.journal_runtime_units.push_back(unit);
      from = comma + 1;
    }
    if (endpoint.empty()) {
      c.runtime_endpoint = detect_endpoint();
      c.endpoint_auto_detected = true;
    } else if (!unix_socket_path(endpoint)) {
      throw UsageError{"--container-runtime-endpoint: invalid value \"" + endpoint +
                       "\" (expected a unix socket such as unix:///run/containerd/containerd.sock)"};
    } else {
      c.runtime_endpoint = endpoint;
    }
    if (c.node_name.empty()) c.node_name = default_node_name();
    c.kubelet_endpoint = url_flag("--kubelet-endpoint", kubelet_endpoint, "https://10.0.0.5:10250");
    c.runtime_metrics_endpoint =
        url_flag("--runtime-metrics-endpoint", runtime_metrics_endpoint, "http://127.0.0.1:1338/v1/metrics");
    if (!c.kubelet_version.empty() && !parse_kubelet_version(c.kubelet_version))
      throw UsageError{"--kubelet-version: invalid value \"" + c.kubelet_version +
                       "\" (expected a Kubernetes version such as v1.35.4)"};
    c.api_server_host = env_or_empty("KUBERNETES_SERVICE_HOST");
    c.api_server_port = env_or_empty("KUBERNETES_SERVICE_PORT");
    out.config = c;
  } catch (const CLI::CallForHelp&) {
    out.exit_code = 0;
    out.message = app.help();
  } catch (const CLI::ParseError& e) {
    out.exit_code = 2;
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    out.message = "plegscope: " + what + " (see plegscope --help)";
  } catch (const UsageError& e) {
    out.exit_code = 2;
    out.message = "plegscope: " + e.message;
    // The message quotes the bad value, which may hold line breaks: keep it one line.
    std::replace(out.message.begin(), out.message.end(), '\n', ' ');
  }
  return out;
}

NodeOptions node_options(const Config& config) {
  NodeOptions o;
  o.node_name = config.node_name;
  o.runtime_endpoint = config.runtime_endpoint;
  o.runtime_request_timeout = config.runtime_request_timeout;
  o.relist_period = config.relist_period;
  o.relist_threshold = config.relist_threshold;
  o.relist_backoff_max = config.relist_backoff_max;
  o.event_channel_capacity = config.event_channel_capacity;
  o.evented = config.evented;
  o.metric_detail = config.metric_detail;
  o.event_log_size = config.event_log_size;
  o.relist_history = config.relist_history;
  o.proc_path = config.proc_path;
  // Journal.
  o.journal_path = config.journal_path;
  o.journal_kubelet_unit = config.journal_kubelet_unit;
  o.journal_runtime_units = config.journal_runtime_units;
  // The kubelet and the runtime's metrics (issue 18).
  o.kubelet_endpoint = config.kubelet_endpoint;
  o.kubelet_token_file = config.kubelet_token_file;
  o.kubelet_ca_file = config.kubelet_ca_file;
  o.kubelet_insecure_skip_tls_verify = config.kubelet_insecure_skip_tls_verify;
  o.kubelet_version = config.kubelet_version;
  o.runtime_metrics_endpoint = config.runtime_metrics_endpoint;
  o.api_server_host = config.api_server_host;
  o.api_server_port = config.api_server_port;
  o.api_server_token_file = config.api_server_token_file;
  o.api_server_ca_file = config.api_server_ca_file;
  // Host evidence (issue 17).
  o.sys_path = config.sys_path;
  o.runtime_root = config.runtime_root;
  o.hang_threshold = config.hang_threshold;
  o.clock_ticks_per_second = config.host_clock_ticks;
  o.host_scan_interval = config.host_scan_interval;
  o.kernel_stacks = config.kernel_stacks;
  o.host_diskstats_before = config.host_diskstats_before;
  return o;
}

DiagnosisOptions diagnosis_options(const Config& config) {
  DiagnosisOptions o;
  o.hang_threshold = config.hang_threshold;
  return o;
}

NodeConditionOptions node_condition_options(const Config& config) {
  NodeConditionOptions o;
  o.policy.hold = config.node_condition_hold;
  o.policy.clear_after = config.node_condition_clear_after;
  o.policy.min_interval = config.node_condition_min_interval;
  o.policy.heartbeat = config.node_condition_heartbeat;
  return o;
}

AgentClientOptions agent_client_options(const Config& config) {
  return {config.tls_ca_file, config.tls_client_cert, config.basic_auth_user, config.basic_auth_password};
}

}  // namespace plegscope
