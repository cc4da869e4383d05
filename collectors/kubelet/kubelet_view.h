#pragma once
// What successive kubelet samples say together, as a value (kubelet_state.h makes it).
#include <cstddef>
#include <optional>
#include <string>

#include "kubelet/kubelet_pleg_model.h"

namespace plegscope {

struct KubeletView {
  size_t samples = 0;  // observed since start (or since the kubelet restarted)
  std::optional<double> sample_age_seconds;  // since the last observe()
  std::optional<double> relist_count;        // kubelet_pleg_relist_duration_seconds_count
  // Since the count last advanced; at the first sample, since that sample
  // (a lower bound: the count may have been frozen before the agent came).
  std::optional<double> seconds_since_relist_advanced;
  std::optional<double> relists_per_minute;  // over the window
  std::optional<double> relist_p99_seconds;  // from bucket deltas over the window
  // Agent wall clock at the last sample minus the kubelet's last-seen
  // timestamp; negative means the two clocks disagree.
  std::optional<double> last_seen_age_seconds;
  std::optional<KubeletVersion> version;
  bool version_overridden = false;  // set_version_override() is in force
  std::optional<bool> evented_pleg_gate;
  std::optional<bool> cri_list_streaming_gate;  // whether the kubelet streams its CRI lists
  // The last sample's kubelet_cri_losing_support{version}: the series lives
  // until the kubelet restarts, so a sample without it means a kubelet that
  // found RuntimeConfig answered.
  std::optional<std::string> cri_losing_support;
  // The kubelet's PLEG as the agent copies it; the newest released
  // kubelet's (model.source assumed) when no version is known.
  KubeletPlegModel model;
};

}  // namespace plegscope
