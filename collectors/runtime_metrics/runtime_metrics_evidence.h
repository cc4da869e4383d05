#pragma once
// The runtime's own metrics page (containerd's, CRI-O's), as last read. A
// reader that is off has an empty endpoint; one that failed has reachable
// false and its error. A plain value the diagnoser's snapshot holds as it is.
#include <map>
#include <string>
#include <vector>

#include "scrape/scrape_loop.h"

namespace plegscope {

struct RuntimeMetricsEvidence : ScrapeRecord {
  struct InFlight {
    std::string method;  // "UpdateContainerResources"
    double count = 0;
    double seconds = 0;  // since first seen in flight, continuously
    double completed_since = 0;
  };
  std::string endpoint;  // "" when --runtime-metrics-endpoint is off
  std::string kind;      // "containerd", "crio", "unknown"
  std::vector<InFlight> in_flight;  // longest first
  // Network setup/teardown p99 over the last minute, by the runtime's
  // operation name ("set_up_pod", "sandbox_create_network", "network_setup_pod").
  std::map<std::string, double> network_p99_seconds;
  // CRI-O: containers whose conmon it found gone, by container name, since
  // it started (containers_stopped_monitor_count).
  std::map<std::string, double> stopped_monitors;
};

}  // namespace plegscope
