#pragma once
// The two readers that scrape over HTTP (issue 18): the kubelet's /metrics
// (and, in-cluster, the Node's Ready message) and the runtime's own metrics
// page. Each scrapes as a job of the Node's scrape thread (both share it:
// every scrape is bounded by its timeouts) and publishes a copy under a
// short lock: snapshot() never waits for a scrape, and a failed scrape is
// evidence (reachable false), never fatal.
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

#include "common/periodic_tasks.h"
#include "diagnoser/snapshot.h"
#include "kubelet/kubelet_source.h"
#include "kubelet/node_ready.h"
#include "node/node_options.h"
#include "runtime_metrics/runtime_metrics.h"

namespace plegscope {

// The in-cluster API server as NodeOptions configure it (KUBERNETES_SERVICE_HOST
// and _PORT, --api-server-token-file, --api-server-ca-file); nullopt outside a cluster.
std::optional<ApiServerConfig> api_server_config(const NodeOptions& options);

// Thread-safe.
class KubeletReader {
 public:
  KubeletReader(const NodeOptions& options, const Clock& clock);
  bool enabled() const { return source_.has_value(); }
  // Adds its jobs to `thread`, which runs them until it stops.
  void start(PeriodicTasks& thread);
  // One scrape on the calling thread (tests); start() scrapes by itself.
  void scrape_now();
  void fetch_ready_now();
  KubeletEvidence evidence() const;
  // Called on the scrape thread after each successful scrape, outside the
  // lock; set before start().
  void on_view(std::function<void(const KubeletView&)> callback) { on_view_ = std::move(callback); }

 private:
  const Clock& clock_;
  std::function<void(const KubeletView&)> on_view_;
  std::optional<KubeletSource> source_;
  std::optional<ApiServerConfig> api_;
  std::string node_name_;
  Duration interval_, ready_interval_;
  mutable std::mutex mu_;
  KubeletEvidence evidence_;  // all but the view
  bool logged_once_ = false;
  KubeletState state_;
  // The kubelet's sandbox call histograms of the last minute, oldest first.
  std::deque<std::pair<MonotonicTime, std::map<std::string, Histogram>>> sandbox_;
};

// Thread-safe.
class RuntimeMetricsReader {
 public:
  explicit RuntimeMetricsReader(const NodeOptions& options);
  bool enabled() const { return source_.has_value(); }
  // Adds its job to `thread`, which runs it until it stops.
  void start(PeriodicTasks& thread);
  void scrape_now();
  RuntimeMetricsEvidence evidence() const;

 private:
  std::optional<RuntimeMetricsSource> source_;
  Duration interval_;
  mutable std::mutex mu_;
  RuntimeMetricsEvidence evidence_;  // all but in_flight
  bool logged_once_ = false;
  RuntimeMetricsState state_;
  // Network histograms of the last minute, oldest first, for a recent p99.
  std::deque<std::pair<MonotonicTime, std::map<std::string, Histogram>>> network_;
};

// p99 per operation over what changed between the oldest and newest sample;
// an operation with no new observations has none. Pure.
std::map<std::string, double> recent_p99(const std::map<std::string, Histogram>& oldest,
                                         const std::map<std::string, Histogram>& newest);

}  // namespace plegscope
