#pragma once
// Wires the collectors for one node: CRI client, PLEG, cache, recorder, event
// log. Shared by `serve` (with HTTP) and the one-shot `diagnose`.
#include <prometheus/registry.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "config.h"
#include "cri/grpc_runtime_client.h"
#include "cri/operation_tracker.h"
#include "pleg/event_log.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_status_cache.h"
#include "pleg/relist_recorder.h"

namespace plegscope {

struct RuntimeInfo {
  std::string name;
  std::string version;
  std::string api_version;
};

// Thread-safe.
class Monitor : public prometheus::Collectable {
 public:
  Monitor(const Config& config, const Clock& clock);
  ~Monitor() override;

  void start();
  void stop();  // cancels in-flight CRI calls, so it returns promptly

  const Config& config() const { return config_; }
  const Clock& clock() const { return clock_; }
  prometheus::Registry& registry() { return *registry_; }
  OperationTracker& tracker() { return tracker_; }
  GenericPleg& pleg() { return pleg_; }
  const EventedPleg& evented() const { return evented_; }
  // The kubelet's verdict: the generic relist's health, and the evented
  // PLEG's while it is active.
  HealthStatus healthy() const;
  PodStatusCache& cache() { return cache_; }
  RelistRecorder& recorder() { return recorder_; }
  EventLog& event_log() { return event_log_; }
  RuntimeInfo runtime_info() const;
  bool ready() const { return pleg_.last_relist_time().has_value(); }
  // Relists completed (failed ones included) since start.
  uint64_t relist_count() const { return relist_count_; }
  // pleg_discard_events_total, read directly (not by collecting the registry).
  uint64_t events_discarded_total() const { return static_cast<uint64_t>(metrics_.discard_events.Value()); }

  // Every family: the registry's plus the ones computed at scrape time.
  std::vector<prometheus::MetricFamily> collect_all() const;
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  void on_relist(const RelistRecord& record);
  void consume_events();
  void refresh_runtime_info_loop();

  const Config config_;
  const Clock& clock_;
  std::shared_ptr<prometheus::Registry> registry_;
  OperationTracker tracker_;
  GrpcRuntimeClient client_;
  PodStatusCache cache_;
  PlegMetrics metrics_;
  RelistRecorder recorder_;
  EventLog event_log_;
  GenericPleg pleg_;
  EventedPleg evented_;

  mutable std::mutex info_mu_;
  RuntimeInfo runtime_info_;
  bool last_relist_failed_ = true;
  // Set by the relist observer, acted on by info_thread_: the observer runs
  // under the relist lock and must not call the runtime.
  bool info_wanted_ = false;
  std::condition_variable info_cv_;
  std::thread info_thread_;

  std::atomic<uint64_t> relist_count_{0};
  std::atomic<bool> stopping_{false};
  std::thread consumer_;
};

}  // namespace plegscope
