#include "condition/node_condition_api.h"

#include <nlohmann/json.hpp>

#include <ctime>

namespace plegscope {
namespace {

// The API server's time format for conditions and core/v1 Events (no
// eventTime: the kubelet's recorder sets firstTimestamp): RFC 3339 seconds, UTC.
std::string api_time(TimePoint t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(
      std::chrono::time_point_cast<std::chrono::seconds>(t));
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

WriteOutcome send(const ApiServerConfig& api, const std::string& method, const std::string& path,
                   const std::string& content_type, const std::string& body) {
  ScrapeRequest request = api_request(api, path);
  request.headers.push_back("Content-Type: " + content_type);
  return scrape_send(request, method, body).outcome;
}

WriteOutcome bad_name(const char* what) {
  WriteOutcome out;
  out.error = ScrapeError::bad_input;
  out.detail = what;
  return out;
}

}  // namespace

std::optional<TimePoint> parse_api_time(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (!end || *end != '\0') return std::nullopt;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::string node_condition_patch(const NodeConditionValue& c) {
  nlohmann::json condition = {{"type", c.type},
                              {"status", c.problem ? "True" : "False"},
                              {"reason", c.reason},
                              {"message", c.message},
                              {"lastHeartbeatTime", api_time(c.heartbeat)},
                              {"lastTransitionTime", api_time(c.transition)}};
  return nlohmann::json{{"status", {{"conditions", nlohmann::json::array({condition})}}}}.dump();
}

WriteOutcome patch_node_condition(const ApiServerConfig& api, const std::string& node,
                                   const NodeConditionValue& condition) {
  if (!dns_subdomain(node)) return bad_name("node name is not a DNS subdomain");
  return send(api, "PATCH", "/api/v1/nodes/" + node + "/status", "application/strategic-merge-patch+json",
              node_condition_patch(condition));
}

std::string node_event_body(const NodeEvent& e) {
  nlohmann::json involved = {{"kind", "Node"}, {"apiVersion", "v1"}, {"name", e.node}};
  // The kubelet's own Node events carry the node's name as uid when it has
  // no other; the API server does not check it.
  involved["uid"] = e.node_uid.empty() ? e.node : e.node_uid;
  return nlohmann::json{{"apiVersion", "v1"},
                        {"kind", "Event"},
                        {"metadata", {{"name", e.name}, {"namespace", kNodeEventNamespace}}},
                        {"involvedObject", involved},
                        {"type", e.type},
                        {"reason", e.reason},
                        {"message", e.message},
                        {"source", {{"component", "plegscope"}, {"host", e.node}}},
                        {"reportingComponent", "plegscope"},
                        {"reportingInstance", e.node},
                        {"count", e.count},
                        {"firstTimestamp", api_time(e.first)},
                        {"lastTimestamp", api_time(e.last)}}
      .dump();
}

std::string node_event_repeat_patch(const NodeEvent& e) {
  return nlohmann::json{{"count", e.count}, {"lastTimestamp", api_time(e.last)}, {"message", e.message}}.dump();
}

WriteOutcome create_node_event(const ApiServerConfig& api, const NodeEvent& event) {
  if (!dns_subdomain(event.node)) return bad_name("node name is not a DNS subdomain");
  return send(api, "POST", std::string("/api/v1/namespaces/") + kNodeEventNamespace + "/events",
              "application/json", node_event_body(event));
}

WriteOutcome patch_node_event(const ApiServerConfig& api, const NodeEvent& event) {
  if (!dns_subdomain(event.name)) return bad_name("event name is not a DNS subdomain");
  return send(api, "PATCH", std::string("/api/v1/namespaces/") + kNodeEventNamespace + "/events/" + event.name,
              "application/strategic-merge-patch+json", node_event_repeat_patch(event));
}

}  // namespace plegscope
