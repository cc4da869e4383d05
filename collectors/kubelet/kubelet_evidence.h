#pragma once
// The kubelet beside the agent, as last read: its own PLEG figures from its
// /metrics, and the Node's Ready message from the API server. A reader that
// is off has an empty endpoint; one that failed has reachable false and its
// error. A plain value the diagnoser's snapshot holds as it is.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cri/runtime_status_evidence.h"
#include "common/clock.h"
#include "kubelet/kubelet_view.h"
#include "scrape/scrape_outcome.h"

namespace plegscope {

struct KubeletEvidence : ScrapeRecord {
  std::string endpoint;  // "" when --kubelet-endpoint is off
  std::string tls_mode;  // kubelet_tls_mode(): "skip_verify", "ca_file", "system_ca"
  KubeletView view;      // what the samples so far say
  std::optional<std::string> ready_message;    // the Node's Ready condition, in-cluster only
  ReadyMessageSays ready_says;                 // what that message says (read_ready_message); all false without one
  std::optional<ScrapeOutcome> ready_outcome;  // the last get nodes/<node>; nullopt: not in-cluster
  // The kubelet's run_podsandbox / stop_podsandbox p99 over the last minute.
  std::map<std::string, double> sandbox_p99_seconds;
  // The last two minutes scrape by scrape, with the kubelet's list calls
  // beside the sandbox calls: a sandbox call held by a stalled runtime ends
  // with the lists held beside it, and a rollout shows as many sandbox calls
  // ending around the slow ones.
  struct CallStep {
    MonoTime monotonic_from{}, monotonic_to{};  // the two scrapes
    TimePoint from{}, to{};  // the same, placed on the wall axis by the node's snapshot
    // The calls of each operation_type that ended between them
    // (run_podsandbox, stop_podsandbox, list_podsandbox, list_containers);
    // absent: none ended.
    struct Calls {
      double count = 0;
      double p99_seconds = 0;  // from the histogram's buckets, as histogram_quantile
    };
    std::map<std::string, Calls> calls;
  };
  std::vector<CallStep> call_steps;  // oldest first
};

}  // namespace plegscope
