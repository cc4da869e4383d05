#include "cli/flags.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "common/go_duration.h"
#include "cri/runtime_socket.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope {
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// A string flag with its environment variable; the default it holds is printed.
CLI::Option* add_text(CLI::App& app, const std::string& flag, std::string& target, const std::string& help) {
  return app.add_option(flag, target, help)->envname(flag_env(flag))->capture_default_str();
}

CLI::Option* add_switch(CLI::App& app, const std::string& flag, bool& target, const std::string& help) {
  return app.add_flag(flag, target, help)->envname(flag_env(flag));
}

// "off" or empty -> ""; else an http(s) URL.
CLI::Option* add_url_flag(CLI::App& app, const std::string& flag, std::string& target, const std::string& help,
                          const std::string& default_text, const char* example) {
  return app
      .add_option_function<std::string>(
          flag,
          [&target, flag, example](const std::string& value) {
            if (value == "off" || value.empty()) {
              target.clear();
              return;
            }
            if (value.rfind("http://", 0) != 0 && value.rfind("https://", 0) != 0)
              throw UsageError{flag + ": invalid value \"" + value + "\" (expected off or a URL such as " + example +
                               ")"};
            target = value;
          },
          help)
      ->envname(flag_env(flag))
      ->default_str(default_text);
}

// --kubelet-endpoint's default: the node's own kubelet when the DaemonSet
// passes NODE_IP (status.hostIP), else off.
std::string default_kubelet_endpoint() {
  std::string ip = env_or_empty("NODE_IP");
  if (ip.empty()) return "";
  if (ip.find(':') != std::string::npos) ip = "[" + ip + "]";
  return "https://" + ip + ":10250";
}

std::string detect_endpoint() {
  for (const auto& candidate : kDefaultRuntimeEndpoints) {
    SocketState state = runtime_socket_state(candidate);
    if (state == SocketState::kSocket || state == SocketState::kNotASocket) return candidate;
  }
  return kDefaultRuntimeEndpoints.front();
}

std::string default_node_name() {
  if (const char* env = std::getenv("NODE_NAME"); env && *env) return env;
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) == 0) return host;
  return "unknown";
}

std::vector<std::string> split_units(const std::string& flag, const std::string& text) {
  std::vector<std::string> units;
  for (size_t from = 0; from <= text.size();) {
    size_t comma = std::min(text.find(',', from), text.size());
    std::string unit = text.substr(from, comma - from);
    if (unit.empty() || unit.find_first_of(" \t\n") != std::string::npos)
      throw UsageError{flag + ": invalid value \"" + text +
                       "\" (expected unit names separated by commas, such as containerd.service,crio.service)"};
    units.push_back(unit);
    from = comma + 1;
  }
  return units;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace

std::string flag_env(const std::string& flag) {
  std::string env = "PLEGSCOPE_";
  for (char c : flag.substr(2)) env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

CLI::Option* add_duration_flag(CLI::App& app, const std::string& flag, Duration& target, const std::string& help,
                               bool allow_zero) {
  return app
      .add_option_function<std::string>(
          flag,
          [&target, flag, allow_zero](const std::string& text) {
            auto d = parse_go_duration(text);
            if (!d || d->count() < 0 || (!allow_zero && d->count() == 0))
              throw UsageError{flag + ": invalid duration \"" + text +
                               "\" (expected a positive Go duration such as 500ms, 1s, 3m, 1h30m)"};
            target = *d;
          },
          help)
      ->envname(flag_env(flag))
      ->default_str(format_go_duration(target));
}

void add_runtime_flags(CLI::App& app, GrpcClientOptions& runtime) {
  app.add_option_function<std::string>(
         "--container-runtime-endpoint",
         [&runtime](const std::string& endpoint) {
           if (!unix_socket_path(endpoint))
             throw UsageError{"--container-runtime-endpoint: invalid value \"" + endpoint +
                              "\" (expected a unix socket such as unix:///run/containerd/containerd.sock)"};
           runtime.endpoint = endpoint;
         },
         "CRI socket (default: first existing of the containerd, k3s/RKE2 containerd, CRI-O, cri-dockerd sockets)")
      ->envname(flag_env("--container-runtime-endpoint"));
  add_duration_flag(app, "--runtime-request-timeout", runtime.request_timeout,
                    "deadline of every CRI call, as the kubelet");
  app.add_option_function<std::string>(
         "--cri-list-streaming",
         [&runtime](const std::string& mode) {
           if (mode == "auto") runtime.list_streaming = ListStreaming::kFollowKubelet;
           else if (mode == "true") runtime.list_streaming = ListStreaming::kOn;
           else if (mode == "false") runtime.list_streaming = ListStreaming::kOff;
           else throw UsageError{"--cri-list-streaming: invalid value \"" + mode + "\" (expected auto, true or false)"};
         },
         "auto (list as the kubelet beside: streamed only where it runs the CRIListStreaming gate, unary without a "
         "readable kubelet, as every release's default), true (StreamPodSandboxes/StreamContainers, unary where the "
         "runtime answers UNIMPLEMENTED) or false (always unary)")
      ->envname(flag_env("--cri-list-streaming"))
      ->default_str("auto");
}

void add_pleg_flags(CLI::App& app, PlegOptions& pleg) {
  add_duration_flag(app, "--relist-period", pleg.relist_period, "relist period, as the kubelet");
  add_duration_flag(app, "--relist-threshold", pleg.relist_threshold, "PLEG health threshold, as the kubelet");
  add_duration_flag(app, "--relist-backoff-max", pleg.relist_backoff_max,
                    "longest the relist period stretches while the runtime struggles; 0s: off", true);
  app.add_option_function<int>(
         "--event-channel-capacity",
         [&pleg](int capacity) {
           if (capacity < 1)
             throw UsageError{"--event-channel-capacity: must be at least 1, got " + std::to_string(capacity)};
           pleg.event_channel_capacity = static_cast<size_t>(capacity);
         },
         "PLEG event channel capacity")
      ->envname(flag_env("--event-channel-capacity"))
      ->default_str(std::to_string(pleg.event_channel_capacity));
  app.add_option_function<std::string>(
         "--evented-pleg",
         [&pleg](const std::string& evented) {
           if (evented == "auto") pleg.evented = EventedMode::Auto;
           else if (evented == "true") pleg.evented = EventedMode::On;
           else if (evented == "false") pleg.evented = EventedMode::Off;
           else throw UsageError{"--evented-pleg: invalid value \"" + evented + "\" (expected auto, true or false)"};
         },
         "false (the kubelet's generic relist, every release's default), true (only beside a kubelet running the "
         "EventedPLEG gate) or auto (beside a readable kubelet: evented only where it runs the EventedPLEG gate "
         "before 1.37; else evented whenever the runtime serves GetContainerEvents)")
      ->envname(flag_env("--evented-pleg"))
      ->default_str("false");
}

void add_host_flags(CLI::App& app, HostSourceOptions& host) {
  add_text(app, "--proc-path", host.proc_path, "where node pressure and processes are read (/host/proc in the DaemonSet)");
  add_text(app, "--sys-path", host.sys_path, "where cgroup pid limits are read (/host/sys in the DaemonSet)");
  add_text(app, "--runtime-root", host.runtime_root,
           "the runtime's data directory, whose disk latency is read (default: the running runtime's, else the "
           "first existing of /var/lib/containerd, /var/lib/containers/storage, /var/lib/docker)");
  add_switch(app, "--kernel-stacks", host.kernel_stacks,
             "read the kernel stacks of the runtime's threads in D with a BPF task iterator, once per host scan "
             "(needs BTF, CAP_BPF and CAP_PERFMON, and hostPID: deploy/components/kernel-stacks); off by default");
  // Hidden, for fixture trees (tests/fixtures/host): their CLK_TCK, a scan
  // interval, and the diskstats sample taken 10 s before theirs.
  app.add_option_function<long>(
         "--host-clock-ticks",
         [&host](long ticks) {
           if (ticks < 0 || ticks > 100000)
             throw UsageError{"--host-clock-ticks: invalid value " + std::to_string(ticks) +
                              " (expected 0, the host's, or the tree's CLK_TCK such as 100)"};
           host.clock_ticks_per_second = ticks;
         },
         "CLK_TCK of the --proc-path tree (tests)")
      ->group("");
  add_duration_flag(app, "--host-scan-interval", host.interval, "host scan interval")->envname("")->group("");
  app.add_option_function<std::string>(
         "--host-diskstats-before",
         [&host](const std::string& path) {
           if (!std::ifstream(path)) throw UsageError{"--host-diskstats-before: cannot read \"" + path + "\""};
           host.diskstats_before = path;
         },
         "diskstats sample taken 10s before the first scan (tests)")
      ->group("");
}

void add_journal_flags(CLI::App& app, JournalFollowerOptions& journal) {
  add_text(app, "--journal-path", journal.journal_path,
           "systemd journal directory for the kubelet's and the runtime's log marks "
           "(default: /var/log/journal, then /run/log/journal)");
  app.add_option_function<std::string>(
         "--journal-kubelet-unit",
         [&journal](const std::string& unit) {
           if (unit.empty() || unit.find_first_of(" ,\t\n") != std::string::npos)
             throw UsageError{"--journal-kubelet-unit: invalid value \"" + unit +
                              "\" (expected one systemd unit name such as kubelet.service)"};
           journal.units.kubelet_unit = unit;
         },
         "the kubelet's systemd unit in the journal")
      ->envname(flag_env("--journal-kubelet-unit"))
      ->default_str(journal.units.kubelet_unit);
  app.add_option_function<std::string>(
         "--journal-runtime-units",
         [&journal](const std::string& units) {
           journal.units.runtime_units = split_units("--journal-runtime-units", units);
         },
         "the runtime's systemd units, comma-separated")
      ->envname(flag_env("--journal-runtime-units"))
      ->default_str(join(journal.units.runtime_units));
}

void add_kubelet_flags(CLI::App& app, KubeletReaderOptions& kubelet) {
  kubelet.endpoint = default_kubelet_endpoint();
  add_url_flag(app, "--kubelet-endpoint", kubelet.endpoint,
               "base URL of the kubelet, /metrics is read from it; off disables "
               "(default https://$NODE_IP:10250 when NODE_IP is set, else off)",
               kubelet.endpoint.empty() ? "off" : kubelet.endpoint, "https://10.0.0.5:10250");
  add_text(app, "--kubelet-token-file", kubelet.token_file, "bearer token for the kubelet (the ServiceAccount token)");
  add_text(app, "--kubelet-ca-file", kubelet.ca_file,
           "CA that signs the kubelet's serving certificate (the ServiceAccount ca.crt); host name or IP verified");
  add_switch(app, "--kubelet-insecure-skip-tls-verify", kubelet.insecure_skip_tls_verify,
             "do not verify the kubelet's certificate (the report says so)");
  app.add_option_function<std::string>(
         "--kubelet-version",
         [&kubelet](const std::string& version) {
           if (!version.empty() && !parse_kubelet_version(version))
             throw UsageError{"--kubelet-version: invalid value \"" + version +
                              "\" (expected a Kubernetes version such as v1.35.4)"};
           kubelet.version = version;
         },
         "which kubelet's PLEG model to follow when its kubernetes_build_info cannot be read, e.g. v1.35.4")
      ->envname(flag_env("--kubelet-version"));
}

// The API server itself is found from KUBERNETES_SERVICE_HOST/_PORT, as
// client-go's in-cluster config does (resolve_host_defaults).
void add_api_server_flags(CLI::App& app, ApiServerOptions& api) {
  add_text(app, "--api-server-token-file", api.token_file,
           "bearer token for the API server's get nodes/<node> (the ServiceAccount token)");
  add_text(app, "--api-server-ca-file", api.ca_file, "CA that signs the API server's certificate (the ServiceAccount ca.crt)");
}

void add_runtime_metrics_flags(CLI::App& app, RuntimeMetricsOptions& runtime_metrics) {
  add_url_flag(app, "--runtime-metrics-endpoint", runtime_metrics.endpoint,
               "the runtime's own metrics page (containerd [metrics] address + /v1/metrics, CRI-O enable_metrics); "
               "off disables",
               "off", "http://127.0.0.1:1338/v1/metrics");
}

void add_condition_flags(CLI::App& app, bool& enabled, NodeConditionOptions& condition) {
  ConditionPolicyOptions& policy = condition.policy;
  add_switch(app, "--node-condition", enabled,
             "write the conditions plegscope.io/PLEGUnhealthy and plegscope.io/NodeRepairAdvised and Events on "
             "the agent's own Node through the API server (needs deploy/components/node-condition's RBAC); off by "
             "default");
  add_duration_flag(app, "--node-condition-hold", policy.hold,
                    "at risk with a critical cause (a hung call, a shim in D) for this long sets the condition True; "
                    "unhealthy sets it at once",
                    true);
  add_duration_flag(app, "--node-condition-clear-after", policy.clear_after,
                    "healthy for this long sets the condition False; also the wait before the first False");
  add_duration_flag(app, "--node-condition-min-interval", policy.min_interval,
                    "at most one change of status or reason per this interval while flapping", true);
  add_duration_flag(app, "--node-condition-heartbeat", policy.heartbeat,
                    "the condition is written again this often when nothing changes");
  add_duration_flag(app, "--node-repair-advised-after", condition.repair_after,
                    "a node-level cause (advice other than fix-pod) held this long sets plegscope.io/NodeRepairAdvised "
                    "True, the condition node-repairing remediators match");
  app.add_option_function<std::string>(
         "--node-repair-fleet-max-share",
         [&condition](const std::string& text) {
           char* end = nullptr;
           const double share = std::strtod(text.c_str(), &end);
           if (text.empty() || *end != '\0' || !(share > 0 && share <= 1))
             throw UsageError{"--node-repair-fleet-max-share: invalid value \"" + text +
                              "\" (expected a share above 0 and at most 1, such as 0.2; 1 turns the guard off)"};
           condition.gate.fleet_max_share = share;
         },
         "plegscope.io/NodeRepairAdvised is withheld on every node while more than this share of the cluster's "
         "agents (and at least two) advise repair or are about to (needs list nodes); 1 turns the guard off")
      ->envname(flag_env("--node-repair-fleet-max-share"))
      ->default_str("0.2");
}

void add_agent_flags(CLI::App& app, Config& config) {
  app.add_option_function<std::string>(
         "--listen-address",
         [&config](const std::string& address) {
           if (address.find(':') == std::string::npos)
             throw UsageError{"--listen-address: invalid value \"" + address +
                              "\" (expected HOST:PORT, e.g. 0.0.0.0:9547)"};
           config.listen_address = address;
         },
         "HTTP address for /metrics and reports")
      ->envname(flag_env("--listen-address"))
      ->default_str(config.listen_address);
  add_duration_flag(app, "--hang-threshold", config.node.hang_threshold, "a CRI call in flight longer is hung");
  app.add_option_function<std::string>(
         "--metrics-detail",
         [&config](const std::string& detail) {
           if (!parse_metric_detail(detail, config.node.metric_detail))
             throw UsageError{"--metrics-detail: invalid value \"" + detail + "\" (expected lean or full)"};
         },
         "lean (the latency series the shipped alerts and dashboards read) or full (every CRI operation's "
         "latency, fine buckets)")
      ->envname(flag_env("--metrics-detail"))
      ->default_str(metric_detail_name(config.node.metric_detail));
  add_text(app, "--node-name", config.node.node_name, "node name in reports ($NODE_NAME or hostname)");
  app.add_option_function<std::string>(
         "--log-level",
         [&config](const std::string& level) {
           static const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
           if (std::find(std::begin(kLevels), std::end(kLevels), level) == std::end(kLevels))
             throw UsageError{"--log-level: invalid value \"" + level +
                              "\" (expected trace, debug, info, warn or error)"};
           config.log_level = level;
         },
         "trace, debug, info, warn, error")
      ->envname(flag_env("--log-level"))
      ->default_str(config.log_level);
  add_text(app, "--web-config-file", config.web_config_file,
           "TLS, basic auth and headers, in the Prometheus exporter-toolkit format");
}

void add_diagnose_flags(CLI::App& diagnose, DiagnoseCommandOptions& options) {
  add_duration_flag(diagnose, "--duration", options.duration, "how long to relist before reporting")
      ->envname("PLEGSCOPE_DIAGNOSE_DURATION");
  diagnose
      .add_option_function<std::string>(
          "--output",
          [&options](const std::string& output) {
            if (output != "text" && output != "json")
              throw UsageError{"--output: invalid value \"" + output + "\" (expected text or json)"};
            options.output = output;
          },
          "text or json")
      ->envname("PLEGSCOPE_DIAGNOSE_OUTPUT")
      ->default_str(options.output);
  diagnose.add_option_function<std::string>(
      "--url",
      [&options](const std::string& url) {
        if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
          throw UsageError{"--url: invalid value \"" + url +
                           "\" (expected http://HOST:PORT or https://HOST:PORT of a running plegscope)"};
        options.url = url;
      },
      "print the report of a running agent, e.g. http://127.0.0.1:9547");
  add_text(diagnose, "--tls-ca-file", options.client.tls_ca_file,
           "with an https --url: CA that signed the agent's certificate");
  add_text(diagnose, "--tls-client-cert", options.client.tls_client_cert,
           "with an https --url: PEM file holding a client certificate and its key");
  add_text(diagnose, "--basic-auth-user", options.client.basic_auth_user, "with --url: user for basic authentication");
  add_text(diagnose, "--basic-auth-password", options.client.basic_auth_password,
           "with --url: password (prefer the environment variable)");
}

void resolve_host_defaults(Config& config) {
  if (config.node.runtime.endpoint.empty()) {
    config.node.runtime.endpoint = detect_endpoint();
    config.endpoint_auto_detected = true;
  }
  if (config.node.node_name.empty()) config.node.node_name = default_node_name();
  config.node.api_server.host = env_or_empty("KUBERNETES_SERVICE_HOST");
  config.node.api_server.port = env_or_empty("KUBERNETES_SERVICE_PORT");
}

void check_flags(Config& config) {
  config.diagnosis.hang_threshold = config.node.hang_threshold;  // one flag, read by both
  config.condition.gate.hang_threshold = config.node.hang_threshold;  // and by the repair gate
  if (config.diagnose.url.rfind("https://", 0) == 0 && config.diagnose.client.tls_ca_file.empty())
    throw UsageError{"--tls-ca-file: required with an https --url (the CA that signed the agent's certificate)"};
  if (!config.web_config_file.empty() && config.command == Config::Command::Serve) {
    auto web = load_web_config(config.web_config_file);
    if (!web.config) throw UsageError{"--web-config-file: " + web.error};
    config.web = *web.config;
  }
}

}  // namespace plegscope
