#pragma once
// One node, observed: the PLEG block (the CRI client and its call tracker,
// the pod status cache, the generic and evented PLEGs, the relist timeline
// and the event log) and the evidence sources beside it, composed once.
// Its outward face is what was observed (snapshot(), pods(), events(),
// health, metrics); nothing outside calls the runtime, the PLEG or the
// cache. Shared by `serve` and the one-shot `diagnose`. It owns no lane:
// the process entry point owns the clock and the lanes and hands them in.
//
// The sources are the list's (source_list.h): a new one is its folder and
// one row there, never a member here.
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "common/source.h"
#include "cri/grpc_runtime_client.h"
#include "cri/operation_tracker.h"
#include "diagnoser/snapshot.h"
#include "node/node_options.h"
#include "node/sources.h"
#include "pleg/event_log.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_status_cache.h"
#include "pleg/relist_recorder.h"

namespace plegscope {

// Thread-safe.
class Node {
 public:
  Node(NodeOptions options, const Clock& clock);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Starts the PLEG's own threads and schedules every source's jobs on
  // `lanes`, before the caller starts them. A source's waiting task (the
  // journal's) is served by lanes.waiting.
  void start(SourceLanes lanes);
  // Cancels in-flight CRI calls, so it returns promptly, and stops the
  // PLEG. The caller stops the lanes after it, before the Node goes.
  void stop();

  // What was observed, copied out for the diagnoser. Takes only short
  // locks: answers while a CRI call hangs.
  Snapshot snapshot() const;
  // The pod status cache and the last events, for /debug.
  std::vector<PodStatus> pods() const;
  std::vector<PodLifecycleEvent> events() const;
  // CRI-O's goroutine dump, read now from its socket for a person who asked
  // (never on a timer); nullopt when the agent does not read CRI-O.
  std::optional<HttpResult> runtime_goroutines() const;
  // Entries in each per-pod structure (/debug/sizes): on a node that churns
  // pods all day they follow what the runtime lists, not what came and went.
  std::vector<std::pair<std::string, size_t>> structure_sizes() const;
  // The kubelet's verdict: the generic relist's health, and the evented
  // PLEG's while it drives the PLEG (before 1.37; a hint has no check).
  HealthStatus health() const;
  // Relists completed (failed ones included) since construction.
  uint64_t relist_count() const { return relist_count_; }
  // Every family for /metrics: the registry's, the call tracker's, the
  // PLEG's computed ones, and every source's.
  std::vector<prometheus::MetricFamily> collect_metrics() const;

  // One relist on the calling thread, for tests and fuzzers; after start()
  // the PLEG's runner relists by itself.
  void relist();

 private:
  void on_relist(const RelistRecord& record);
  void consume_events();
  void follow_kubelet_model(const KubeletView& view);
  void follow_kubelet_list_streaming(const KubeletView& view);
  // Answers what the sources ask of the PLEG block and of each other,
  // through the pure joins of snapshot_joins.h.
  void join_sources();
  // The PLEG's pod behind a call target.
  std::optional<PodIdentity> find_pod(const CallTarget& target) const { return pleg_.find_pod(target); }
  std::vector<prometheus::MetricFamily> computed_families() const;

  const NodeOptions options_;
  const Clock& clock_;

  // The PLEG block.
  std::shared_ptr<prometheus::Registry> registry_;
  OperationTracker tracker_;
  GrpcRuntimeClient client_;
  PodStatusCache cache_;
  PlegMetrics metrics_;
  RelistRecorder recorder_;
  EventLog event_log_;
  GenericPleg pleg_;
  EventedPleg evented_;

  // The sources beside it (source_list.h), built from the node's context.
  const std::optional<ApiServerConfig> api_server_;
  const SourceContext context_;
  Sources sources_;

  // --evented-pleg auto beside a readable kubelet: evented only once the
  // kubelet shows the EventedPLEG gate (a hint from 1.37).
  std::atomic<bool> evented_started_{false};
  std::atomic<uint64_t> relist_count_{0};
  std::atomic<bool> stopping_{false};
  std::thread consumer_;
};

}  // namespace plegscope
