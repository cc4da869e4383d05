#pragma once
// The runtime's own metrics page (containerd's, CRI-O's), as last read. A
// reader that is off has an empty endpoint; one that failed has reachable
// false and its error. A plain value the diagnoser's snapshot holds as it is.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "prom_text/histogram_value.h"
#include "scrape/scrape_outcome.h"

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
  // containerd 2.x's NRI plugins: each plugin's calls of one operation that
  // ended over the last nri_window_seconds, the plugin named as NRI
  // registered it. A call still waiting on a plugin is not counted yet.
  struct NriCalls {
    std::string plugin;     // "10-stall" (index-name)
    std::string operation;  // "CreateContainer", "StopPodSandbox", "Synchronize"
    Histogram latency;      // the calls that ended in the window
    double timeouts = 0;    // of them, given up at NRI's plugin_request_timeout
    // Seconds since the scrape that saw its timeouts grow; none when no
    // scrape saw them grow (none, or all before the agent's first scrape).
    std::optional<double> seconds_since_timeout;
    // The calls that ended after that scrape: a plugin that answers again
    // after NRI cut it off (it reconnected) shows here, fast or slow; none
    // when no cut-off was seen.
    std::optional<Histogram> since_timeout;
  };
  std::vector<NriCalls> nri_calls;  // by plugin, then operation
  std::optional<double> nri_active_plugins;
  double nri_window_seconds = 0;
};

}  // namespace plegscope
