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

std::string_view label_or_empty(const PromSample& s, std::string_view name) {
  return s.label(name).value_or(std::string_view());
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// containerd serves some 130 methods and each has a handled series per
// grpc_code (some 2,000 lines): a method's counts are summed in place, found
// by its two label values as the page wrote them.
struct MethodCalls {
  std::string_view service, method;
  double started = 0, handled = 0;
  bool operator<(const MethodCalls& o) const {
    return service != o.service ? service < o.service : method < o.method;
  }
};

void read_grpc(const PromParseResult& parsed, RuntimeMetricsSample& out) {
  std::vector<MethodCalls> calls;
  if (auto* started = parsed.family("grpc_server_started_total")) {
    calls.reserve(started->samples.size());
    for (const auto& s : started->samples) {
      calls.push_back(MethodCalls{label_or_empty(s, "grpc_service"), label_or_empty(s, "grpc_method"), s.value});
    }
  }
  // A method may have several started series (other label sets): one entry, summed.
  std::sort(calls.begin(), calls.end());
  size_t kept = 0;
  for (size_t k = 0; k < calls.size(); ++k) {
    if (kept > 0 && !(calls[kept - 1] < calls[k])) {
      calls[kept - 1].started += calls[k].started;
    } else {
      calls[kept++] = calls[k];
    }
  }
  calls.resize(kept);
  if (auto* handled = parsed.family("grpc_server_handled_total"); handled && !calls.empty()) {
    MethodCalls* last = nullptr;  // one method's codes come together
    for (const auto& s : handled->samples) {
      MethodCalls key{label_or_empty(s, "grpc_service"), label_or_empty(s, "grpc_method")};
      if (!last || last->method != key.method || last->service != key.service) {
        auto it = std::lower_bound(calls.begin(), calls.end(), key);
        last = it != calls.end() && !(key < *it) ? &*it : nullptr;
        if (!last) continue;
      }
      last->handled += s.value;
    }
  }
  out.grpc_methods.reserve(calls.size());
  for (const auto& c : calls) {
    out.grpc_methods.push_back(GrpcMethodCalls{std::string(c.service), std::string(c.method), c.started, c.handled});
  }
}

void read_crio(const PromParseResult& parsed, RuntimeMetricsSample& out) {
  if (auto* summary = parsed.family("container_runtime_crio_operations_latency_seconds_total")) {
    for (const auto& s : summary->samples) {
      CrioOperation& op = out.crio_operations[std::string(label_or_empty(s, "operation"))];
      if (ends_with(s.name, "_sum")) op.sum = s.value;
      else if (ends_with(s.name, "_count")) op.count = s.value;
      else if (auto q = s.label("quantile")) {
        if (*q == "0.5") op.p50 = s.value;
        else if (*q == "0.9") op.p90 = s.value;
        else if (*q == "0.99") op.p99 = s.value;
      }
    }
  }
  if (auto* gauge = parsed.family("container_runtime_crio_operations_latency_seconds")) {
    for (const auto& s : gauge->samples) {
      out.crio_operations[std::string(label_or_empty(s, "operation"))].last_seconds = s.value;
    }
  }
  if (auto* errors = parsed.family("container_runtime_crio_operations_errors_total")) {
    for (const auto& s : errors->samples) out.crio_operation_errors[std::string(label_or_empty(s, "operation"))] += s.value;
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
      if (auto v = s.label("version")) out.version = std::string(*v);
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
    for (const auto& s : errors->samples) out.network_operation_errors[std::string(label_or_empty(s, "operation_type"))] += s.value;
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
