#pragma once
// kubelet_internal's own details: what its rule measured and its words print, beside
// the finding's common core (finding.h). Types only.
#include <optional>
#include <string>

#include "common/clock.h"
#include "diagnoser/finding_values.h"

namespace plegscope {

// The kubelet's own PLEG stalls while the agent's relists are fast.
template <>
struct CauseDetails<CauseId::kKubeletInternal> {
  std::string endpoint;                   // the kubelet's metrics page
  double threshold_seconds = 0;           // how long the kubelet's relist may stand still before it counts
  std::optional<double> kubelet_last_seen_age_seconds;
  std::optional<double> kubelet_flat_seconds;  // since the kubelet's relist count last moved
  double agent_relist_p99_seconds = 0;
  double model_threshold_seconds = 0;     // the kubelet's PLEG threshold in its model
  // The kubelet's own "PLEG is not healthy" journal lines in the window.
  int journal_marks = 0;
  std::optional<TimePoint> journal_first_mark, journal_last_mark;
  std::string journal_last_message;
};
using KubeletInternalDetails = CauseDetails<CauseId::kKubeletInternal>;

}  // namespace plegscope
