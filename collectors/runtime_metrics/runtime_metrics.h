#pragma once
// The container runtime's own metrics page: containerd's gRPC counters
// (go-grpc-prometheus: grpc_server_started_total - grpc_server_handled_total
// per method = calls in flight inside containerd, from every client), its
// CNI latency and dropped events; CRI-O's per-operation latency, errors,
// defunct processes and dropped events. A pure parse, a state that ages
// in-flight calls across samples on a monotonic clock passed in, and the fetch.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scrape/scrape_error.h"
#include "scrape/scrape_get.h"
#include "prom_text/histogram.h"

namespace plegscope {

enum class RuntimeKind { unknown, containerd, crio };
const char* runtime_kind_name(RuntimeKind kind);

struct GrpcMethodCalls {
  std::string service;  // "runtime.v1.RuntimeService"
  std::string method;   // "UpdateContainerResources"
  double started = 0;
  double handled = 0;   // summed over grpc_code
  double in_flight() const { return started > handled ? started - handled : 0; }
};

struct CrioOperation {
  std::optional<double> p50, p90, p99;  // the summary's quantiles, seconds
  std::optional<double> sum, count;
  std::optional<double> last_seconds;   // ..._operations_latency_seconds gauge
};

struct RuntimeMetricsSample {
  RuntimeKind kind = RuntimeKind::unknown;
  std::string version;  // containerd_build_info_total{version}
  std::vector<GrpcMethodCalls> grpc_methods;  // every method with a started series
  // containerd 1.7+: by operation_type ("set_up_pod", "tear_down_pod") of
  // containerd_cri_network_plugin_operations_duration_seconds_seconds (sic);
  // every version also: "sandbox_create_network" / "sandbox_delete_network"
  // from containerd_cri_sandbox_{create,delete}_network_seconds.
  std::map<std::string, Histogram> network_operations;
  std::map<std::string, double> network_operation_errors;  // 1.7+, by operation_type
  std::optional<Histogram> gc_seconds;  // containerd_gc_gc_seconds
  std::optional<double> container_events_dropped;  // containerd 2.x or CRI-O
  std::map<std::string, CrioOperation> crio_operations;  // by operation
  std::map<std::string, double> crio_operation_errors;   // by operation
  std::optional<double> crio_processes_defunct;
  std::map<std::string, double> crio_stalled_at_stage;  // resources_stalled_at_stage, by stage
  std::map<std::string, double> crio_stopped_monitors;  // containers_stopped_monitor_count, by container name
  // containerd 2.x's NRI: each plugin's calls by nri_call_key(plugin,
  // operation), the plugin as NRI registered it ("10-stall": index-name).
  // A call is counted only once it ends (answered, or given up at NRI's
  // plugin_request_timeout, after which NRI disconnects the plugin).
  std::map<std::string, Histogram> nri_latency;  // containerd_nri_plugin_latency_seconds
  std::map<std::string, double> nri_timeouts;    // ..._invocations_total{error="deadline_exceeded"}
  std::optional<double> nri_active_plugins;      // containerd_nri_active_plugins_total
  size_t families_found = 0;
  size_t malformed_lines = 0;
  std::string parse_error;
};

// "10-stall/CreateContainer": one key for a plugin's calls of one
// operation, split back by split_nri_call_key.
std::string nri_call_key(std::string_view plugin, std::string_view operation);
std::pair<std::string, std::string> split_nri_call_key(std::string_view key);

// Never throws; garbage gives families_found == 0 and a parse_error.
RuntimeMetricsSample parse_runtime_metrics(std::string_view exposition);

using MonotonicTime = std::chrono::steady_clock::time_point;

struct RuntimeInFlightCall {
  std::string service;
  std::string method;
  double count = 0;
  // Since the method was first seen with calls in flight, continuously: a
  // lower bound on the oldest call's age. Overlapping short calls keep it
  // growing too; completed_since tells the two apart (a stuck call shows
  // count > 0 with few completions).
  double seconds = 0;
  double completed_since = 0;  // handled calls since first seen in flight
};

// Not thread-safe: one scrape loop calls observe(); others read copies.
class RuntimeMetricsState {
 public:
  void observe(const RuntimeMetricsSample& sample, MonotonicTime now);
  // Longest in flight first.
  std::vector<RuntimeInFlightCall> in_flight(MonotonicTime now) const;

 private:
  struct Tracked {
    MonotonicTime first_seen;
    double handled_at_first_seen = 0;
    double handled = 0;
    double count = 0;
  };
  std::map<std::pair<std::string, std::string>, Tracked> tracked_;
};

// url is the whole URL: containerd "http://127.0.0.1:1338/v1/metrics"; CRI-O's
// metrics can require mutual TLS (client_cert_file, client_key_file).
using RuntimeMetricsScrapeConfig = ScrapeRequest;

struct RuntimeMetricsScrape {
  ScrapeOutcome outcome;
  RuntimeMetricsSample sample;  // empty unless outcome.ok()
};

// Thread-safe: holds its config and the last page's storage.
class RuntimeMetricsScraper {
 public:
  explicit RuntimeMetricsScraper(RuntimeMetricsScrapeConfig config);
  // A task the scrape's waits serve (the waiting lane's); before scraping.
  void serve_while_waiting(FdTask* task) { config_.serve_while_waiting = task; }
  RuntimeMetricsScrape scrape() const;

 private:
  RuntimeMetricsScrapeConfig config_;
  mutable ScrapeBuffer page_storage_;
};

}  // namespace plegscope
