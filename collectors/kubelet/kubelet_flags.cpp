// The kubelet's and the API server's flags: where the kubelet is, the
// credentials for both, and which kubelet release to assume.
#include <cstdlib>

#include "common/flag_binding.h"
#include "kubelet/kubelet_metrics.h"
#include "kubelet/kubelet_reader.h"

namespace plegscope {
namespace {

// --kubelet-endpoint's default: the node's own kubelet when the DaemonSet
// passes NODE_IP (status.hostIP), else off.
std::string default_kubelet_endpoint() {
  const char* env = std::getenv("NODE_IP");
  std::string ip = env ? env : "";
  if (ip.empty()) return "";
  if (ip.find(':') != std::string::npos) ip = "[" + ip + "]";
  return "https://" + ip + ":10250";
}

}  // namespace

void add_flags(CLI::App& app, KubeletReaderOptions& kubelet) {
  kubelet.endpoint = default_kubelet_endpoint();
  add_url_flag(app, "--kubelet-endpoint", kubelet.endpoint,
               "base URL of the kubelet, /metrics is read from it; off disables "
               "(default https://$NODE_IP:10250 when NODE_IP is set, else off)",
               kubelet.endpoint.empty() ? "off" : kubelet.endpoint, "https://10.0.0.5:10250");
  add_text_flag(app, "--kubelet-token-file", kubelet.token_file,
                "bearer token for the kubelet (the ServiceAccount token)");
  add_text_flag(app, "--kubelet-ca-file", kubelet.ca_file,
                "CA that signs the kubelet's serving certificate (the ServiceAccount ca.crt); host name or IP verified");
  add_switch_flag(app, "--kubelet-insecure-skip-tls-verify", kubelet.insecure_skip_tls_verify,
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
// client-go's in-cluster config does (the command line reads them).
void add_flags(CLI::App& app, ApiServerOptions& api) {
  add_text_flag(app, "--api-server-token-file", api.token_file,
                "bearer token for the API server's get nodes/<node> (the ServiceAccount token)");
  add_text_flag(app, "--api-server-ca-file", api.ca_file,
                "CA that signs the API server's certificate (the ServiceAccount ca.crt)");
}

}  // namespace plegscope
