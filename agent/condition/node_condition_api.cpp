#include "condition/node_condition_api.h"

#include <nlohmann/json.hpp>

#include <cctype>
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

namespace {

// A continue token in a query: everything but RFC 3986's unreserved characters escaped.
std::string query_escape(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char ch : text) {
    if (std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
      out += static_cast<char>(ch);
    } else {
      out += '%';
      out += hex[ch >> 4];
      out += hex[ch & 15];
    }
  }
  return out;
}

bool condition_true(const nlohmann::json& conditions, const char* type, bool* present) {
  for (const auto& c : conditions) {
    if (!c.is_object() || c.value("type", "") != type) continue;
    if (present) *present = true;
    return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace

std::optional<FleetPage> parse_fleet_page(std::string_view text, std::string* error) {
  nlohmann::json list = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (list.is_discarded() || !list.is_object() || !list.contains("items") || !list["items"].is_array()) {
    if (error) *error = "not a NodeList";
    return std::nullopt;
  }
  FleetPage page;
  for (const auto& node : list["items"]) {
    if (!node.is_object()) continue;
    const nlohmann::json* conditions = nullptr;
    if (auto st = node.find("status"); st != node.end() && st->is_object())
      if (auto c = st->find("conditions"); c != st->end() && c->is_array()) conditions = &*c;
    if (!conditions) continue;
    bool has_broad = false;
    FleetNode n;
    n.unhealthy = condition_true(*conditions, kNodeConditionType, &has_broad);
    n.advised = condition_true(*conditions, kNodeRepairConditionType, nullptr);
    if (!has_broad) continue;  // no agent writes the condition there
    if (auto m = node.find("metadata"); m != node.end() && m->is_object()) n.name = m->value("name", "");
    if (n.name.empty()) continue;
    page.nodes.push_back(std::move(n));
  }
  if (auto m = list.find("metadata"); m != list.end() && m->is_object()) {
    auto c = m->find("continue");
    if (c != m->end() && c->is_string()) page.next = c->get<std::string>();
  }
  return page;
}

FleetFetch fetch_fleet(const ApiServerConfig& api, int max_pages) {
  FleetFetch out;
  std::string next;
  for (int page = 0; page < max_pages; ++page) {
    std::string path = "/api/v1/nodes?limit=100";
    if (!next.empty()) path += "&continue=" + query_escape(next);
    ScrapeResponse response = scrape_get(api_request(api, path));
    out.outcome = response.outcome;
    if (!out.outcome.ok()) return out;
    std::string error;
    auto parsed = parse_fleet_page(response.body, &error);
    if (!parsed) {
      out.outcome.error = ScrapeError::unexpected_content;
      out.outcome.detail = error;
      return out;
    }
    for (auto& n : parsed->nodes) out.nodes.push_back(std::move(n));
    next = parsed->next;
    if (next.empty()) return out;
  }
  out.outcome.error = ScrapeError::unexpected_content;
  out.outcome.detail = "more Nodes than " + std::to_string(max_pages) + " pages of 100";
  return out;
}

}  // namespace plegscope
