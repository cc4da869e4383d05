#pragma once
// The one write plegscope makes, and only with --node-condition: a condition
// on its own Node's status and Events about that Node, through the API
// server. Never a write on the host. Pure body builders (tested alone) and
// the calls, on the same libcurl client and credentials as the Ready fetch
// (collectors/kubelet/node_ready.h); the acting side's own, beside its writer.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "diagnoser/node_condition_state.h"
#include "kubelet/node_ready.h"

namespace plegscope {

inline constexpr const char* kNodeConditionType = "plegscope.io/PLEGUnhealthy";
// The narrow one, for remediators that repair or replace nodes: True only
// while a node-level cause has held past a window, never for a pod's own.
inline constexpr const char* kNodeRepairConditionType = "plegscope.io/NodeRepairAdvised";
// The kubelet records a Node's Events in this namespace.
inline constexpr const char* kNodeEventNamespace = "default";

// "2026-11-24T05:00:00Z" as the API server writes a condition's times;
// nullopt for anything else.
std::optional<TimePoint> parse_api_time(const std::string& text);

struct NodeConditionValue {
  std::string type = kNodeConditionType;
  bool problem = false;  // "True" (a problem, node-problem-detector polarity) or "False"
  std::string reason;    // "RuntimeHung", "PLEGHealthy"
  std::string message;   // one line
  TimePoint heartbeat{};
  TimePoint transition{};
};

// {"status":{"conditions":[{...}]}}: a strategic merge patch keyed by the
// condition's type, so every other condition on the Node stays as it is.
std::string node_condition_patch(const NodeConditionValue& condition);

// PATCH /api/v1/nodes/<node>/status (application/strategic-merge-patch+json).
// The name must be a DNS subdomain (else bad_input, no request).
// Thread-safe; bounded by the config's timeouts.
WriteOutcome patch_node_condition(const ApiServerConfig& api, const std::string& node,
                                   const NodeConditionValue& condition);

struct NodeEvent {
  std::string name;     // "<node>.<hex>", unique per first occurrence
  std::string node;
  std::string node_uid; // "" when unknown; the API server accepts an Event without it
  std::string type;     // "Normal" or "Warning"
  std::string reason;   // the condition's reason
  std::string message;
  int64_t count = 1;
  TimePoint first{};
  TimePoint last{};
};

// The core/v1 Event as the kubelet's recorder creates it: involvedObject the
// Node, source component "plegscope" on the node.
std::string node_event_body(const NodeEvent& event);
// What the recorder patches on a repeat: count, lastTimestamp and message.
std::string node_event_repeat_patch(const NodeEvent& event);

// POST /api/v1/namespaces/default/events; thread-safe, bounded.
WriteOutcome create_node_event(const ApiServerConfig& api, const NodeEvent& event);
// PATCH /api/v1/namespaces/default/events/<name> (strategic merge).
WriteOutcome patch_node_event(const ApiServerConfig& api, const NodeEvent& event);

// What the API server says of the cluster's agents: one entry per Node that
// carries plegscope.io/PLEGUnhealthy (an agent with --node-condition runs
// there), for NodeRepairAdvised's fleet-share guard.
struct FleetNode {
  std::string name;
  bool unhealthy = false;  // plegscope.io/PLEGUnhealthy True
  bool advised = false;    // plegscope.io/NodeRepairAdvised True
};

// One page of GET /api/v1/nodes: the Nodes that carry the condition, and
// the list's continue token ("" on the last page). nullopt, with *error
// set, when the text is not a NodeList.
struct FleetPage {
  std::vector<FleetNode> nodes;
  std::string next;
};
std::optional<FleetPage> parse_fleet_page(std::string_view node_list_json, std::string* error);

struct FleetFetch {
  ScrapeOutcome outcome;
  std::vector<FleetNode> nodes;  // complete when outcome.ok()
};
// Every page of GET /api/v1/nodes?limit=100 (a page of Nodes with their images
// stays under the 4 MiB body cap; needs list nodes, which
// deploy/components/node-condition grants). Thread-safe, each page bounded by
// the config's timeouts; `max_pages` bounds the whole.
FleetFetch fetch_fleet(const ApiServerConfig& api, int max_pages = 200);

}  // namespace plegscope
