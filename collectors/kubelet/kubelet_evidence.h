#pragma once
// The kubelet beside the agent, as last read: its own PLEG figures from its
// /metrics, and the Node's Ready message from the API server. A reader that
// is off has an empty endpoint; one that failed has reachable false and its
// error. A plain value the diagnoser's snapshot holds as it is.
#include <map>
#include <optional>
#include <string>

#include "kubelet/kubelet_state.h"
#include "scrape/scrape_loop.h"

namespace plegscope {

struct KubeletEvidence : ScrapeRecord {
  std::string endpoint;  // "" when --kubelet-endpoint is off
  std::string tls_mode;  // kubelet_tls_mode(): "skip_verify", "ca_file", "system_ca"
  KubeletView view;      // what the samples so far say
  std::optional<std::string> ready_message;    // the Node's Ready condition, in-cluster only
  std::optional<ScrapeOutcome> ready_outcome;  // the last get nodes/<node>; nullopt: not in-cluster
  // The kubelet's run_podsandbox / stop_podsandbox p99 over the last minute.
  std::map<std::string, double> sandbox_p99_seconds;
};

}  // namespace plegscope
