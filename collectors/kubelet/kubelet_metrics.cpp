#include "kubelet/kubelet_metrics.h"

#include <charconv>
#include <vector>

namespace plegscope {
namespace {

const std::vector<std::string>& wanted_families() {
  static const std::vector<std::string> names = {
      "kubelet_pleg_last_seen_seconds",
      "kubelet_pleg_relist_duration_seconds",
      "kubelet_pleg_relist_interval_seconds",
      "kubelet_pleg_pod_relist_duration_seconds",
      "kubelet_pleg_discard_events",
      "kubelet_runtime_operations_duration_seconds",
      "kubelet_runtime_operations_errors",
      "kubelet_running_pods",
      "kubelet_evented_pleg_connection_error_count",
      "kubelet_evented_pleg_connection_error",
      "kubelet_evented_pleg_connection_success_count",
      "kubelet_evented_pleg_connection_success",
      "kubelet_evented_pleg_connection_latency_seconds",
      "kubernetes_feature_enabled",
      "kubernetes_build_info",
      "kubelet_cri_losing_support",
  };
  return names;
}

// Counters, gauges: the first sample's value, whatever its suffix.
std::optional<double> scalar(const PromFamily* family) {
  if (!family || family->samples.empty()) return std::nullopt;
  return family->samples.front().value;
}

std::optional<int> leading_int(std::string_view& s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return v;
}

}  // namespace

std::optional<KubeletVersion> parse_kubelet_version(std::string_view git_version) {
  std::string_view s = git_version;
  if (!s.empty() && s[0] == 'v') s.remove_prefix(1);
  auto major = leading_int(s);
  if (!major || s.empty() || s[0] != '.') return std::nullopt;
  s.remove_prefix(1);
  auto minor = leading_int(s);
  if (!minor || *major < 0 || *minor < 0) return std::nullopt;
  return KubeletVersion{*major, *minor, std::string(git_version)};
}

KubeletSample parse_kubelet_metrics(std::string_view exposition) {
  PromParseResult parsed = parse_prom_text(exposition, wanted_families());
  KubeletSample s;
  s.malformed_lines = parsed.malformed_lines;
  s.parse_error = parsed.first_error;
  auto f = [&parsed](const char* name) { return parsed.family(name); };

  s.pleg_last_seen_seconds = scalar(f("kubelet_pleg_last_seen_seconds"));
  s.relist_duration = single_histogram(f("kubelet_pleg_relist_duration_seconds"));
  s.relist_interval = single_histogram(f("kubelet_pleg_relist_interval_seconds"));
  s.pod_relist_duration = single_histogram(f("kubelet_pleg_pod_relist_duration_seconds"));
  s.pleg_discard_events = scalar(f("kubelet_pleg_discard_events"));
  if (auto* ops = f("kubelet_runtime_operations_duration_seconds")) {
    s.runtime_operations_duration = histograms_by(*ops, "operation_type");
  }
  if (auto* errors = f("kubelet_runtime_operations_errors")) {
    for (const auto& sample : errors->samples) {
      s.runtime_operations_errors[std::string(sample.label("operation_type").value_or(""))] += sample.value;
    }
  }
  s.running_pods = scalar(f("kubelet_running_pods"));
  s.evented_pleg_connection_errors = scalar(f("kubelet_evented_pleg_connection_error_count"));
  if (!s.evented_pleg_connection_errors) {
    s.evented_pleg_connection_errors = scalar(f("kubelet_evented_pleg_connection_error"));
  }
  s.evented_pleg_connection_successes = scalar(f("kubelet_evented_pleg_connection_success_count"));
  if (!s.evented_pleg_connection_successes) {
    s.evented_pleg_connection_successes = scalar(f("kubelet_evented_pleg_connection_success"));
  }
  s.evented_pleg_connection_latency =
      single_histogram(f("kubelet_evented_pleg_connection_latency_seconds"));
  if (auto* gates = f("kubernetes_feature_enabled")) {
    for (const auto& sample : gates->samples) {
      const auto name = sample.label("name");
      if (name == std::string_view("EventedPLEG")) s.evented_pleg_gate = sample.value > 0;
      if (name == std::string_view("CRIListStreaming")) s.cri_list_streaming_gate = sample.value > 0;
    }
  }
  if (auto* build = f("kubernetes_build_info")) {
    for (const auto& sample : build->samples) {
      if (auto v = sample.label("git_version")) {
        s.version = parse_kubelet_version(*v);
        if (s.version) break;
      }
    }
  }
  if (auto* losing = f("kubelet_cri_losing_support")) {
    for (const auto& sample : losing->samples) {
      auto v = sample.label("version");
      if (v && !v->empty() && sample.value > 0) s.cri_losing_support = std::string(*v);
    }
  }
  for (const auto& family : parsed.families) {
    if (!family.samples.empty()) ++s.families_found;
  }
  return s;
}

KubeletPlegModel pleg_model_for(const KubeletVersion& version, bool evented_pleg_gate) {
  KubeletPlegModel model;
  model.behaviour = kubelet_model_of(version.major, version.minor);
  model.source = ModelSource::read;
  // kubelet.go before 1.37: the gate builds the generic PLEG with
  // eventedPlegRelistPeriod (300 s) and eventedPlegRelistThreshold (10 min);
  // 1.37 builds it with the generic 1 s / 3 min whatever the gate.
  if (evented_pleg_gate && !model.behaviour.evented_hint) {
    model.kind = PlegModelKind::evented_legacy;
    model.relist_period_seconds = 300;
    model.relist_threshold_seconds = 600;
  } else if (evented_pleg_gate) {
    model.kind = PlegModelKind::evented_hint;
  }
  return model;
}

KubeletPlegModel assumed_pleg_model(bool evented_pleg_gate) {
  KubeletPlegModel model = pleg_model_for(KubeletVersion{1, kNewestKubeletMinor, ""}, evented_pleg_gate);
  model.source = ModelSource::assumed;
  return model;
}

}  // namespace plegscope
