#include "cli/flags.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "common/flag_binding.h"

namespace plegscope {
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string default_node_name() {
  if (const char* env = std::getenv("NODE_NAME"); env && *env) return env;
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) == 0) return host;
  return "unknown";
}

}  // namespace

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
  add_text_flag(app, "--node-name", config.node.node_name, "node name in reports ($NODE_NAME or hostname)");
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
  add_text_flag(app, "--web-config-file", config.web_config_file,
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
  add_text_flag(diagnose, "--tls-ca-file", options.client.tls_ca_file,
                "with an https --url: CA that signed the agent's certificate");
  add_text_flag(diagnose, "--tls-client-cert", options.client.tls_client_cert,
                "with an https --url: PEM file holding a client certificate and its key");
  add_text_flag(diagnose, "--basic-auth-user", options.client.basic_auth_user, "with --url: user for basic authentication");
  add_text_flag(diagnose, "--basic-auth-password", options.client.basic_auth_password,
                "with --url: password (prefer the environment variable)");
}

void resolve_host_defaults(Config& config) {
  if (config.node.runtime.endpoint.empty()) {
    config.node.runtime.endpoint = detect_runtime_endpoint();
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
