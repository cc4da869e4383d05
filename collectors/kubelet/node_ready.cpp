#include "kubelet/node_ready.h"

#include <nlohmann/json.hpp>


namespace plegscope {
namespace {

std::string string_field(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool dns_subdomain(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return true;
}

std::optional<ApiServerConfig> api_server_config(const ApiServerOptions& options) {
  auto api = in_cluster_api_server(options.host, options.port);
  if (api) {
    api->token_file = options.token_file;
    api->ca_file = options.ca_file;
  }
  return api;
}

ScrapeRequest api_request(const ApiServerConfig& api, const std::string& path) {
  ScrapeRequest request;
  request.url = api.base_url + path;
  request.token_file = api.token_file;
  request.ca_file = api.ca_file;
  request.connect_timeout = api.connect_timeout;
  request.total_timeout = api.total_timeout;
  request.max_body_bytes = api.max_body_bytes;
  request.serve_while_waiting = api.serve_while_waiting;
  request.headers.push_back("Accept: application/json");
  return request;
}

std::optional<NodeReadyCondition> parse_node_ready(std::string_view node_json, std::string* error) {
  return parse_node_condition(node_json, "Ready", error);
}

std::optional<NodeReadyCondition> parse_node_condition(std::string_view node_json, const std::string& type,
                                                       std::string* error) {
  auto fail = [error](const char* what) -> std::optional<NodeReadyCondition> {
    if (error) *error = what;
    return std::nullopt;
  };
  nlohmann::json node = nlohmann::json::parse(node_json.begin(), node_json.end(), nullptr, false);
  if (node.is_discarded() || !node.is_object()) return fail("not a JSON object");
  if (string_field(node, "kind") != "Node") return fail("not a Node");
  auto status = node.find("status");
  if (status == node.end() || !status->is_object()) return fail("no status");
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return fail("no status.conditions");
  for (const auto& c : *conditions) {
    if (!c.is_object() || string_field(c, "type") != type) continue;
    NodeReadyCondition ready;
    ready.status = string_field(c, "status");
    ready.reason = string_field(c, "reason");
    ready.message = string_field(c, "message");
    ready.last_heartbeat_time = string_field(c, "lastHeartbeatTime");
    ready.last_transition_time = string_field(c, "lastTransitionTime");
    return ready;
  }
  if (error) *error = "no " + type + " condition";
  return std::nullopt;
}

std::optional<ApiServerConfig> in_cluster_api_server(std::string_view host, std::string_view port) {
  if (host.empty() || port.empty()) return std::nullopt;
  ApiServerConfig api;
  std::string h(host);
  if (h.find(':') != std::string::npos && h.front() != '[') h = "[" + h + "]";
  api.base_url = "https://" + h + ":" + std::string(port);
  return api;
}

NodeReadyFetch fetch_node_ready(const ApiServerConfig& api, const std::string& node_name) {
  NodeReadyFetch out = fetch_node_condition(api, node_name, "Ready");
  if (out.outcome.ok() && !out.ready) {
    out.outcome.error = ScrapeError::unexpected_content;
    out.outcome.detail = "no Ready condition";
  }
  return out;
}

NodeReadyFetch fetch_node_condition(const ApiServerConfig& api, const std::string& node_name,
                                    const std::string& type) {
  NodeReadyFetch out;
  if (!dns_subdomain(node_name)) {
    out.outcome.error = ScrapeError::bad_input;
    out.outcome.detail = "node name is not a DNS subdomain";
    return out;
  }
  ScrapeResponse response = scrape_get(api_request(api, "/api/v1/nodes/" + node_name));
  out.outcome = response.outcome;
  if (!out.outcome.ok()) return out;
  std::string error;
  out.ready = parse_node_condition(response.body, type, &error);
  if (!out.ready && error != "no " + type + " condition") {
    out.outcome.error = ScrapeError::unexpected_content;
    out.outcome.detail = error;
  }
  return out;
}

}  // namespace plegscope
