#include "runtime_metrics/runtime_metrics.h"

#include <algorithm>
#include <utility>

#include "http/scrape_get.h"

namespace plegscope {
namespace {

const std::vector<std::string>& wanted_families() {
  static const std::vector<std::string> names = {
      "grpc_server_started_total",
      "grpc_server_handled_total",
      "containerd_build_info_total",
      // docker/go-metrics appends the unit again: these are the real names.
      "containerd_cri_network_plugin_operations_duration_seconds_seconds",
      "containerd_cri_network_plugin_operations_duration_seconds",
      "containerd_cri_network_plugin_operations_errors_total",  // also matches ..._total_total
      "containerd_gc_gc_seconds",
      "containerd_cri_sandbox_create_network_seconds",
      "containerd_cri_sandbox_delete_network_seconds",
      "containerd_cri_container_events_dropped_total",
      "container_runtime_crio_operations_latency_seconds_total",
      "container_runtime_crio_operations_latency_seconds",
      "container_runtime_crio_operations_errors_total",
      "container_runtime_crio_processes_defunct",
      "container_runtime_crio_containers_events_dropped_total",
  };
  return names;
}

std::string label_or_empty(const PromSample& s, std::string_view name) {
  const std::string* v = s.label(name);
  return v ? *v : std::string();
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void read_grpc(const PromParseResult& parsed, RuntimeMetricsSample& out) {
  std::map<std::pair<std::string, std::string>, GrpcMethodCalls> calls;
  if (auto* started = parsed.family("grpc_server_started_total")) {
    for (const auto& s : started->samples) {
      auto key = std::make_pair(label_or_empty(s, "grpc_service"), label_or_empty(s, "grpc_method"));
      auto& c = calls[key];
      c.service = key.first;
      c.method = key.second;
      c.started += s.value;
    }
  }
  if (auto* handled = parsed.family("grpc_server_handled_total")) {
    for (const auto& s : handled->samples) {
      auto key = std::make_pair(label_or_empty(s, "grpc_service"), label_or_empty(s, "grpc_method"));
      auto it = calls.find(key);
      if (it != calls.end()) it->second.handled += s.value;
    }
  }
  for (auto& [key, c] : calls) out.grpc_methods.push_back(std::move(c));
}

void read_crio(const PromParseResult& parsed, RuntimeMetricsSample& out) {
  if (auto* summary = parsed.family("container_runtime_crio_operations_latency_seconds_total")) {
    for (const auto& s : summary->samples) {
      CrioOperation& op = out.crio_operations[label_or_empty(s, "operation")];
      if (ends_with(s.name, "_sum")) op.sum = s.value;
      else if (ends_with(s.name, "_count")) op.count = s.value;
      else if (const std::string* q = s.label("quantile")) {
        if (*q == "0.5") op.p50 = s.value;
        else if (*q == "0.9") op.p90 = s.value;
        else if (*q == "0.99") op.p99 = s.value;
      }
    }
  }
  if (auto* gauge = parsed.family("container_runtime_crio_operations_latency_seconds")) {
    for (const auto& s : gauge->samples) {
      out.crio_operations[label_or_empty(s, "operation")].last_seconds = s.value;
    }
  }
  if (auto* errors = parsed.family("container_runtime_crio_operations_errors_total")) {
    for (const auto& s : errors->samples) out.crio_operation_errors[label_or_empty(s, "operation")] += s.value;
  }
  if (auto* defunct = parsed.family("container_runtime_crio_processes_defunct")) {
    if (!defunct->samples.empty()) out.crio_processes_defunct = defunct->samples.front().value;
  }
  if (auto* dropped = parsed.family("container_runtime_crio_containers_events_dropped_total")) {
    if (!dropped->samples.empty()) out.container_events_dropped = dropped->samples.front().value;
  }
}

}  // namespace

const char* runtime_kind_name(RuntimeKind kind) {
  switch (kind) {
    case RuntimeKind::unknown: return "unknown";
    case RuntimeKind::containerd: return "containerd";
    case RuntimeKind::crio: return "crio";
  }
  return "unknown";
}

RuntimeMetricsSample parse_runtime_metrics(std::string_view exposition) {
  PromParseResult parsed = parse_prom_text(exposition, wanted_families());
  RuntimeMetricsSample out;
  out.malformed_lines = parsed.malformed_lines;
  out.parse_error = parsed.first_error;
  for (const auto& family : parsed.families) {
    if (family.samples.empty()) continue;
    ++out.families_found;
    if (family.name.rfind("containerd_", 0) == 0) out.kind = RuntimeKind::containerd;
    if (family.name.rfind("container_runtime_crio_", 0) == 0) out.kind = RuntimeKind::crio;
  }
  read_grpc(parsed, out);
  if (out.kind == RuntimeKind::unknown && !out.grpc_methods.empty()) {
    // containerd serves its own services beside the CRI ones.
    for (const auto& m : out.grpc_methods) {
      if (m.service.rfind("containerd.", 0) == 0) out.kind = RuntimeKind::containerd;
    }
  }
  if (auto* build = parsed.family("containerd_build_info_total")) {
    for (const auto& s : build->samples) {
      if (const std::string* v = s.label("version")) out.version = *v;
    }
  }
  for (const char* name : {"containerd_cri_network_plugin_operations_duration_seconds_seconds",
                           "containerd_cri_network_plugin_operations_duration_seconds"}) {
    if (auto* cni = parsed.family(name); cni && out.network_operations.empty()) {
      out.network_operations = histograms_by(*cni, "operation_type");
    }
  }
  out.gc_seconds = single_histogram(parsed.family("containerd_gc_gc_seconds"));
  if (auto* errors = parsed.family("containerd_cri_network_plugin_operations_errors_total")) {
    for (const auto& s : errors->samples) out.network_operation_errors[label_or_empty(s, "operation_type")] += s.value;
  }
  if (auto h = single_histogram(parsed.family("containerd_cri_sandbox_create_network_seconds"))) {
    out.network_operations.emplace("sandbox_create_network", *h);
  }
  if (auto h = single_histogram(parsed.family("containerd_cri_sandbox_delete_network_seconds"))) {
    out.network_operations.emplace("sandbox_delete_network", *h);
  }
  if (auto* dropped = parsed.family("containerd_cri_container_events_dropped_total")) {
    if (!dropped->samples.empty()) out.container_events_dropped = dropped->samples.front().value;
  }
  read_crio(parsed, out);
  return out;
}

void RuntimeMetricsState::observe(const RuntimeMetricsSample& sample, MonotonicTime now) {
  std::map<std::pair<std::string, std::string>, Tracked> next;
  for (const auto& m : sample.grpc_methods) {
    if (m.in_flight() <= 0) continue;
    auto key = std::make_pair(m.service, m.method);
    auto it = tracked_.find(key);
    Tracked t;
    if (it != tracked_.end() && m.handled >= it->second.handled) {
      t = it->second;
    } else {
      t.first_seen = now;
      t.handled_at_first_seen = m.handled;
    }
    t.handled = m.handled;
    t.count = m.in_flight();
    next.emplace(std::move(key), t);
  }
  tracked_ = std::move(next);
}

std::vector<RuntimeInFlightCall> RuntimeMetricsState::in_flight(MonotonicTime now) const {
  std::vector<RuntimeInFlightCall> out;
  for (const auto& [key, t] : tracked_) {
    RuntimeInFlightCall call;
    call.service = key.first;
    call.method = key.second;
    call.count = t.count;
    call.seconds = std::chrono::duration<double>(now - t.first_seen).count();
    call.completed_since = t.handled - t.handled_at_first_seen;
    out.push_back(std::move(call));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RuntimeInFlightCall& a, const RuntimeInFlightCall& b) { return a.seconds > b.seconds; });
  return out;
}

RuntimeMetricsSource::RuntimeMetricsSource(RuntimeMetricsSourceConfig config) : config_(std::move(config)) {}

RuntimeMetricsScrape RuntimeMetricsSource::scrape() const {
  RuntimeMetricsScrape out;
  ScrapeResponse response = scrape_get(config_);
  out.outcome = response.outcome;
  if (!out.outcome.ok()) return out;
  out.sample = parse_runtime_metrics(response.body);
  if (out.sample.families_found == 0) {
    out.outcome.error = ScrapeError::unexpected_content;
    out.outcome.detail = out.sample.parse_error.empty() ? "no runtime metric family" : out.sample.parse_error;
  }
  return out;
}

}  // namespace plegscope
