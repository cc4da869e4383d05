#pragma once
// The node's Ready condition from the API server (GET /api/v1/nodes/<name>):
// its message carries the kubelet's own "PLEG is not healthy: pleg was last
// seen active ..." sentence. A pure parse over the Node's JSON, and the fetch.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "common/flag_declaration.h"
#include "scrape/scrape_error.h"
#include "scrape/scrape_get.h"

namespace plegscope {

struct NodeReadyCondition {
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::string last_heartbeat_time;  // RFC 3339, as the API server wrote it
  std::string last_transition_time;
};

// nullopt, with *error set, when the text is not a Node with a Ready condition.
std::optional<NodeReadyCondition> parse_node_ready(std::string_view node_json, std::string* error);
// The same for the condition of `type` ("plegscope.io/PLEGUnhealthy").
std::optional<NodeReadyCondition> parse_node_condition(std::string_view node_json, const std::string& type,
                                                       std::string* error);

// Where a pod finds its ServiceAccount's credentials: the defaults of every
// token and CA flag that talks to the kubelet or the API server.
inline constexpr const char* kServiceAccountTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token";
inline constexpr const char* kServiceAccountCaFile = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";

struct ApiServerConfig {
  std::string base_url;  // "https://10.96.0.1:443"
  std::string token_file = kServiceAccountTokenFile;
  std::string ca_file = kServiceAccountCaFile;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds total_timeout{5000};
  size_t max_body_bytes = 4u << 20;
  FdTask* serve_while_waiting = nullptr;  // HttpRequestOptions'
};

// The API server as the agent's options give it: KUBERNETES_SERVICE_HOST and
// _PORT from the environment, --api-server-token-file, --api-server-ca-file.
struct ApiServerOptions {
  std::string host;  // empty: not in a cluster
  std::string port;
  std::string token_file = kServiceAccountTokenFile;
  std::string ca_file = kServiceAccountCaFile;
};

// --api-server-token-file and --api-server-ca-file (kubelet_flags.cpp).
void add_flags(CLI::App& app, ApiServerOptions& options);

// The in-cluster API server from KUBERNETES_SERVICE_HOST and _PORT (values
// passed in); nullopt when either is empty. An IPv6 host is bracketed.
std::optional<ApiServerConfig> in_cluster_api_server(std::string_view host, std::string_view port);
// The same, with the options' credentials; nullopt outside a cluster.
std::optional<ApiServerConfig> api_server_config(const ApiServerOptions& options);

// A request to the API server at `path` ("/api/v1/nodes/worker-3") with the
// config's token, CA, timeouts and body cap; JSON accepted.
ScrapeRequest api_request(const ApiServerConfig& api, const std::string& path);

// True when `name` is a DNS subdomain (RFC 1123): what a Node's name is.
bool dns_subdomain(const std::string& name);

struct NodeReadyFetch {
  ScrapeOutcome outcome;
  std::optional<NodeReadyCondition> ready;  // set when outcome.ok()
};

// Thread-safe. The name must be a DNS subdomain (else bad_input, no request).
NodeReadyFetch fetch_node_ready(const ApiServerConfig& api, const std::string& node_name);
// The condition of `type` on the Node; `ready` nullopt (outcome ok) when the
// Node has none.
NodeReadyFetch fetch_node_condition(const ApiServerConfig& api, const std::string& node_name,
                                    const std::string& type);

}  // namespace plegscope
