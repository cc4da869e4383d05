#pragma once
// The node condition and its Events (--node-condition), as the writer last
// left them: what it wrote and whether the API server took it. The report's
// "node_condition" section; a 403 or an unreachable API server shows here
// with its fix, and is never fatal.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "common/clock.h"
#include "scrape/scrape_outcome.h"

namespace plegscope {

// How one write to the API server went (the condition's PATCH, an Event's
// POST or PATCH): the product's one write, not a scrape, so it has its own
// type. The HTTP client's outcome converts into it (implicitly: every call
// site hands one over as it is).
struct WriteOutcome {
  ScrapeError error = ScrapeError::none;  // what failed, as the HTTP client classes it
  long http_status = 0;                   // 409 a conflict, 404 an Event gone, ...
  std::string detail;                     // raw, for the log
  WriteOutcome() = default;
  WriteOutcome(const ScrapeOutcome& transport)  // NOLINT(google-explicit-constructor)
      : error(transport.error), http_status(transport.http_status), detail(transport.detail) {}
  WriteOutcome(ScrapeError e, long status, std::string d) : error(e), http_status(status), detail(std::move(d)) {}
  bool ok() const { return error == ScrapeError::none; }
};

struct NodeConditionState {
  bool enabled = false;                // --node-condition
  std::optional<std::string> status;   // "True"/"False" as last written; nullopt before the first write
  std::optional<std::string> reason;
  std::optional<std::string> message;
  std::optional<TimePoint> last_write;
  bool reachable = false;              // the last call to the API server went through
  std::optional<WriteOutcome> outcome;  // of the last call that failed, while it is the latest
  std::optional<std::string> error;    // its words with the fix, filled in by agent/report
  int64_t writes = 0;                  // condition writes that went through
  int64_t events = 0;                  // Events created or patched
  int64_t failures = 0;                // calls that failed
  // plegscope.io/NodeRepairAdvised (agent/condition/repair_gate.h):
  std::optional<std::string> repair_status;  // "True"/"False" as last written
  // "advised", "not_advised", or "withheld_<why>" ("withheld_kubelet_disagrees",
  // "withheld_kubelet_unreadable", "withheld_fleet_share", "withheld_fleet_unknown"):
  // the state label of pleg_node_repair_advice.
  std::string repair_advice = "not_advised";
  // The kubelet's view when the gate was last asked: "agrees:<signal>",
  // "disagrees:<signal>", "unreadable"; "" before it was asked.
  std::string repair_kubelet;
  // The cluster's agents and those advising or about to, when last listed.
  std::optional<int64_t> fleet_agents, fleet_advising;
};

}  // namespace plegscope
