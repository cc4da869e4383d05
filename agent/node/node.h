#pragma once
// One node, observed: the PLEG block (the CRI client and its call tracker,
// the pod status cache, the generic and evented PLEGs, the relist timeline
// and the event log) and the evidence sources beside it, composed once.
// Its outward face is what was observed (snapshot(), pods(), events(),
// health, metrics); nothing outside calls the runtime, the PLEG or the
// cache. Shared by `serve` and the one-shot `diagnose`. It owns no lane:
// the process entry point owns the clock and the lanes and hands them in.
//
// A new evidence source: one member below, one entry in sources_ (node.cpp)
// and one line in snapshot() filling its Snapshot field.
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
#include "cri/runtime_info_source.h"
#include "cri/runtime_status_probe.h"
#include "diagnoser/snapshot.h"
#include "host/host_source.h"
#include "host/pressure_source.h"
#include "journal/journal_source.h"
#include "kubelet/kubelet_reader.h"
#include "node/node_options.h"
#include "pleg/event_log.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_status_cache.h"
#include "pleg/relist_recorder.h"
#include "runtime_metrics/runtime_metrics_reader.h"
#include "crio/crio_source.h"

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
  // The running containers the last host scan found no conmon for.
  std::vector<std::string> containers_without_conmon() const;
  std::vector<prometheus::MetricFamily> computed_families() const;
  // The pods with a CRI call in flight, for the host scan's cgroup v2 reads.
  std::set<std::string> pods_in_flight() const;

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

  // The sources beside it, each read in snapshot().
  RuntimeInfoSource runtime_info_;
  PressureSource pressure_;
  HostSource host_;
  JournalSource journal_;
  KubeletReader kubelet_;
  RuntimeMetricsReader runtime_metrics_;
  // The runtime's CRI Status every 5 s, the kubelet's other path to NotReady.
  RuntimeStatusProbe runtime_status_;
  // CRI-O's pages on its socket (on a CRI-O node): containers whose conmon died.
  CrioPagesSource crio_pages_;
  const std::vector<Source*> sources_;

  // --evented-pleg auto beside a readable kubelet: evented only once the
  // kubelet shows the EventedPLEG gate (a hint from 1.37).
  std::atomic<bool> evented_started_{false};
  std::atomic<uint64_t> relist_count_{0};
  std::atomic<bool> stopping_{false};
  std::thread consumer_;
};

}  // namespace plegscope
