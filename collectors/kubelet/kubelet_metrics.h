#pragma once
// The kubelet's own PLEG view, read from its /metrics: a pure parse over the
// exposition's bytes, the version it reports, and the PLEG model that
// version implies. Families an older kubelet lacks are empty fields.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kubelet/kubelet_pleg_model.h"
#include "pleg/pleg_options.h"
#include "prom_text/histogram.h"

namespace plegscope {

// "v1.30.2" -> {1, 30}; also without the "v"; nullopt for anything else.
std::optional<KubeletVersion> parse_kubelet_version(std::string_view git_version);

struct KubeletSample {
  std::optional<double> pleg_last_seen_seconds;  // unix seconds on the kubelet's clock
  std::optional<Histogram> relist_duration;      // kubelet_pleg_relist_duration_seconds
  std::optional<Histogram> relist_interval;      // kubelet_pleg_relist_interval_seconds
  std::optional<Histogram> pod_relist_duration;  // kubelet_pleg_pod_relist_duration_seconds (1.36+)
  std::optional<double> pleg_discard_events;     // with or without _total
  std::map<std::string, Histogram> runtime_operations_duration;  // by operation_type
  std::map<std::string, double> runtime_operations_errors;       // by operation_type
  std::optional<double> running_pods;
  std::optional<double> evented_pleg_connection_errors;     // _error_count / _error_total
  std::optional<double> evented_pleg_connection_successes;  // _success_count / _success_total
  std::optional<Histogram> evented_pleg_connection_latency;
  std::optional<bool> evented_pleg_gate;  // kubernetes_feature_enabled{name="EventedPLEG"}
  std::optional<bool> cri_list_streaming_gate;  // kubernetes_feature_enabled{name="CRIListStreaming"}
  std::optional<KubeletVersion> version;  // kubernetes_build_info{git_version}
  // kubelet_cri_losing_support{version}: the release the kubelet says will
  // stop supporting the runtime beside it. The kubelet registers the family
  // only when the runtime answered RuntimeConfig UNIMPLEMENTED at its start.
  std::optional<std::string> cri_losing_support;
  size_t families_found = 0;  // how many of the families above were present
  size_t malformed_lines = 0;
  std::string parse_error;  // the parser's first error, "" when none
};

// Never throws; garbage gives families_found == 0 and a parse_error.
KubeletSample parse_kubelet_metrics(std::string_view exposition);

KubeletPlegModel pleg_model_for(const KubeletVersion& version, bool evented_pleg_gate);
// Without a version to read: the newest released kubelet's, with the gate
// as read (off, its default, when unknown).
KubeletPlegModel assumed_pleg_model(bool evented_pleg_gate);

}  // namespace plegscope
