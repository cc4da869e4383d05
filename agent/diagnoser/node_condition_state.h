#pragma once
// The node condition and its Events (--node-condition), as the writer last
// left them: what it wrote and whether the API server took it. The report's
// "node_condition" section; a 403 or an unreachable API server shows here
// with its fix, and is never fatal.
#include <cstdint>
#include <optional>
#include <string>

#include "common/clock.h"
#include "scrape/scrape_error.h"

namespace plegscope {

struct NodeConditionState {
  bool enabled = false;                // --node-condition
  std::optional<std::string> status;   // "True"/"False" as last written; nullopt before the first write
  std::optional<std::string> reason;
  std::optional<std::string> message;
  std::optional<TimePoint> last_write;
  bool reachable = false;              // the last call to the API server went through
  std::optional<ScrapeOutcome> outcome;  // of the last call that failed, while it is the latest
  std::optional<std::string> error;    // its words with the fix, filled in by agent/report
  int64_t writes = 0;                  // condition writes that went through
  int64_t events = 0;                  // Events created or patched
  int64_t failures = 0;                // calls that failed
};

}  // namespace plegscope
