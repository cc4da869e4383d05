#include "runtime_metrics/runtime_metrics.h"

#include <algorithm>
#include <utility>

#include "scrape/scrape_get.h"

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
      "container_runtime_crio_resources_stalled_at_stage",
      "container_runtime_crio_containers_stopped_monitor_count",
      "containerd_nri_plugin_latency_seconds",
      "containerd_nri_plugin_invocations_total",
      "containerd_nri_active_plugins_total",
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
// by its two label values as the page wrote them. A family's series come in
// the same order under every code, so the method after the last one found is
// tried first, and a search runs only where that order breaks.
struct MethodCalls {
  std::string_view service, method;
  double started = 0, handled = 0;
  bool same(const MethodCalls& o) const { return method == o.method && service == o.service; }
  bool operator<(const MethodCalls& o) const {
    return service != o.service ? service < o.service : method < o.method;
  }
};

void read_grpc(const PromParseResult& parsed, RuntimeMetricsSample& out) {
  std::vector<MethodCalls> calls;  // as the page lists them
  if (auto* started = parsed.family("grpc_server_started_total")) {
    calls.reserve(started->samples.size());
    for (const auto& s : started->samples) {
      calls.push_back(MethodCalls{label_or_empty(s, "grpc_service"), label_or_empty(s, "grpc_method"), s.value});
    }
  }
  if (calls.empty()) return;
  std::vector<size_t> by_key(calls.size());
  for (size_t k = 0; k < calls.size(); ++k) by_key[k] = k;
  std::stable_sort(by_key.begin(), by_key.end(), [&calls](size_t a, size_t b) { return calls[a] < calls[b]; });
  if (auto* handled = parsed.family("grpc_server_handled_total")) {
    size_t next = 0;
    for (const auto& s : handled->samples) {
      MethodCalls key{label_or_empty(s, "grpc_service"), label_or_empty(s, "grpc_method")};
      size_t at = next;
      if (at >= calls.size() || !calls[at].same(key)) {
        auto it = std::lower_bound(by_key.begin(), by_key.end(), key,
                                   [&calls](size_t a, const MethodCalls& k) { return calls[a] < k; });
        if (it == by_key.end() || !calls[*it].same(key)) continue;
        at = *it;
      }
      calls[at].handled += s.value;
      next = at + 1;
    }
  }
  // A method with several started series (other label sets) is one entry, summed.
  out.grpc_methods.reserve(calls.size());
  for (size_t k = 0; k < by_key.size(); ++k) {
    const MethodCalls& c = calls[by_key[k]];
    if (k > 0 && c.same(calls[by_key[k - 1]])) {
      out.grpc_methods.back().started += c.started;
      out.grpc_methods.back().handled += c.handled;
    } else {
      out.grpc_methods.push_back(GrpcMethodCalls{std::string(c.service), std::string(c.method), c.started, c.handled});
    }
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
  // A counter: the create stage the kubelet keeps retrying because CRI-O is
  // still working on it (a slow network setup, a stuck storage step).
  if (auto* stalled = parsed.family("container_runtime_crio_resources_stalled_at_stage")) {
    for (const auto& s : stalled->samples) out.crio_stalled_at_stage[std::string(label_or_empty(s, "stage"))] += s.value;
  }
  // By container name (k8s_<container>_<pod>_<namespace>_<uid>_<attempt>):
  // CRI-O counts a container whose conmon it found gone; the container then
  // stays "running" in its answers, since only conmon writes the exit file.
  if (auto* stopped = parsed.family("container_runtime_crio_containers_stopped_monitor_count")) {
    for (const auto& s : stopped->samples)
      if (s.value > 0) out.crio_stopped_monitors[std::string(label_or_empty(s, "name"))] += s.value;
  }
}

// containerd 2.x's NRI figures (internal/nri/metrics.go), by plugin and operation.
void read_nri(const PromParseResult& parsed, RuntimeMetricsSample& out) {
  // The plugin's name first: the key is nri_call_key(plugin, operation).
  if (auto* latency = parsed.family("containerd_nri_plugin_latency_seconds"))
    out.nri_latency = histograms_by(*latency, "plugin", "operation");
  if (auto* calls = parsed.family("containerd_nri_plugin_invocations_total")) {
    for (const auto& s : calls->samples) {
      if (label_or_empty(s, "error") != "deadline_exceeded") continue;
      out.nri_timeouts[nri_call_key(label_or_empty(s, "plugin"), label_or_empty(s, "operation"))] += s.value;
    }
  }
  if (auto* active = parsed.family("containerd_nri_active_plugins_total")) {
    if (!active->samples.empty()) out.nri_active_plugins = active->samples.front().value;
  }
}

}  // namespace

std::string nri_call_key(std::string_view plugin, std::string_view operation) {
  std::string key(plugin);
  key += '/';
  key += operation;
  return key;
}

std::pair<std::string, std::string> split_nri_call_key(std::string_view key) {
  // Plugin names are checked by NRI (no '/'); operations are Go identifiers.
  const size_t slash = key.rfind('/');
  if (slash == std::string_view::npos) return {std::string(key), ""};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

const char* runtime_kind_name(RuntimeKind kind) {
  switch (kind) {
    case RuntimeKind::unknown: return "unknown";
    case RuntimeKind::containerd: return "containerd";
    case RuntimeKind::crio: return "crio";
  }
  return "unknown";
}

RuntimeMetricsSample parse_runtime_metrics(std::string_view exposition) {
  // Handled series are only summed per method; the 0s (most of some 2,000
  // lines on a busy node too: 17 codes per method) are skipped unread.
  static const std::vector<std::string> summed = {"grpc_server_handled_total"};
  PromParseResult parsed = parse_prom_text(exposition, wanted_families(), summed);
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
  read_nri(parsed, out);
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

RuntimeMetricsScraper::RuntimeMetricsScraper(RuntimeMetricsScrapeConfig config) : config_(std::move(config)) {}

RuntimeMetricsScrape RuntimeMetricsScraper::scrape() const {
  RuntimeMetricsScrape out;
  ScrapeResponse response = scrape_get(config_, page_storage_.take());
  out.outcome = response.outcome;
  if (out.outcome.ok()) out.sample = parse_runtime_metrics(response.body);
  page_storage_.give_back(std::move(response.body));
  if (!out.outcome.ok()) return out;
  if (out.sample.families_found == 0) {
    out.outcome.error = ScrapeError::unexpected_content;
    out.outcome.detail = out.sample.parse_error.empty() ? "no runtime metric family" : out.sample.parse_error;
  }
  return out;
}

}  // namespace plegscope
