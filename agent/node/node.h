#pragma once
// One node, observed: the CRI client, the generic and evented PLEG, the pod
// status cache, the relist timeline, the event log, and the node-evidence
// readers, composed once. Its outward face is what was observed (snapshot(),
// pods(), events(), health, metrics); nothing outside calls the runtime, the
// PLEG or the cache. Shared by `serve` and the one-shot `diagnose`.
//
// A new evidence reader: one member below (built from NodeOptions in
// node.cpp) and one line in Node::snapshot() filling its Snapshot field.
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/periodic_tasks.h"
#include "cri/grpc_runtime_client.h"
#include "cri/operation_tracker.h"
#include "cri/runtime_status_probe.h"
#include "diagnoser/snapshot.h"
#include "journal/journal_follower.h"
#include "node/node_options.h"
#include "node/node_pressure.h"
#include "node/scrape_readers.h"
#include "pleg/event_log.h"
#include "pleg/evented_pleg.h"
#include "pleg/generic_pleg.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_status_cache.h"
#include "pleg/relist_recorder.h"
#include "host/host_scanner.h"

namespace plegscope {

// Thread-safe.
class Node {
 public:
  Node(NodeOptions options, const Clock& clock);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Starts observing. The short periodic jobs (the host scan, what
  // add_periodic() added) run on a thread of their own, or with
  // `timers_on_caller` on whichever thread calls run_timers().
  void start(bool timers_on_caller = false);
  // Runs the periodic jobs on the calling thread until `sleep_until(next)`
  // returns true (PeriodicTasks::run_here); only after start(true).
  void run_timers(const std::function<bool(MonoTime next)>& sleep_until) { timers_.run_here(sleep_until); }
  void stop();  // cancels in-flight CRI calls, so it returns promptly

  // What was observed, copied out for the diagnoser. Takes only short
  // locks: answers while a CRI call hangs.
  Snapshot snapshot() const;
  // The pod status cache and the last events, for /debug.
  std::vector<PodStatus> pods() const;
  std::vector<PodLifecycleEvent> events() const;
  // Entries in each per-pod structure (/debug/sizes): on a node that churns
  // pods all day they follow what the runtime lists, not what came and went.
  std::vector<std::pair<std::string, size_t>> structure_sizes() const;
  // The kubelet's verdict: the generic relist's health, and the evented
  // PLEG's while it is active.
  HealthStatus health() const;
  // Relists completed (failed ones included) since construction.
  uint64_t relist_count() const { return relist_count_; }
  // Every family for /metrics: the registry's, the call tracker's and the
  // ones computed at scrape time (pleg_healthy, plegscope_build_info).
  std::vector<prometheus::MetricFamily> collect_metrics() const;
  const Clock& clock() const { return clock_; }
  // The node condition writer's latest state (--node-condition), for the
  // report: the writer publishes it here after every call.
  void set_node_condition(const NodeConditionState& state);

  // Adds a short job that never waits on the runtime or the network to the
  // node's timer thread (the verdict watch); before start().
  void add_periodic(Duration interval, std::function<void()> job) { timers_.every(interval, std::move(job)); }

  // One relist on the calling thread, for tests and fuzzers; after start()
  // the PLEG's runner relists by itself.
  void relist();

 private:
  struct RuntimeInfo {
    std::string name;
    std::string version;
    std::string api_version;
  };

  void on_relist(const RelistRecord& record);
  void consume_events();
  void refresh_runtime_info();  // on readers_, when a relist asked for it
  RuntimeInfo runtime_info() const;
  std::vector<prometheus::MetricFamily> computed_families() const;
  // Per-pod calls (issue 17): in flight and slowest recent, with their pods.
  std::vector<Snapshot::PodCall> pod_calls(const std::map<std::string, OperationStats>& operations) const;
  // Host evidence (issue 17): scans every host_scan_interval, and at once
  // when a CRI call passes the hang threshold; looked at every second.
  void host_scan_tick();
  void seed_diskstats();  // NodeOptions::host_diskstats_before
  std::vector<prometheus::MetricFamily> host_families() const;
  std::map<std::string, PodRef> pods_by_sandbox(const host::HostEvidence& evidence) const;
  std::map<int64_t, PodRef> shim_pods(const host::HostEvidence& evidence) const;
  std::map<int64_t, PodRef> zombie_parent_pods(const host::HostEvidence& evidence) const;

  const NodeOptions options_;
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

  // Node evidence, one reader per source, each read in snapshot().
  NodePressureReader pressure_;
  // Journal: follows the kubelet's and the runtime's units, served by readers_.
  JournalFollower journal_;
  // The kubelet and the runtime's metrics (issue 18), on readers_.
  KubeletReader kubelet_;
  RuntimeMetricsReader runtime_metrics_;
  // The runtime's CRI Status every 5 s, begun and looked for on timers_ without
  // waiting (the kubelet's other path to NotReady).
  RuntimeStatusProbe runtime_status_;

  // Host evidence (issue 17): one long-lived scanner on timers_;
  // snapshot() copies the latest evidence under host_mu_, never scans.
  std::unique_ptr<host::HostScanner> host_scanner_;
  mutable std::mutex host_mu_;
  std::optional<host::HostEvidence> host_evidence_;
  MonoTime host_scanned_{};  // when host_evidence_ was read
  std::vector<int64_t> zombie_history_;  // per scan, oldest first, bounded
  MonoTime next_host_scan_{};            // timers_' thread only
  bool hang_scanned_ = false;            // one on-demand scan per hang; timers_' thread only

  // Short periodic jobs that never call the runtime share one thread (the
  // host scan, and what add_periodic() adds); the jobs that wait on a
  // socket, each bounded by its timeouts (the two HTTP readers, the runtime's
  // Version), share another, so a slow kubelet, runtime page or runtime never
  // delays the host scan a hang asks for. readers_ also serves the journal
  // follower: its waits (the scrapes' included) watch the journal's fd.
  PeriodicTasks timers_;
  PeriodicTasks readers_;

  mutable std::mutex info_mu_;
  RuntimeInfo runtime_info_;
  bool last_relist_failed_ = true;
  // Set by the relist observer, acted on by readers_.
  bool info_wanted_ = false;

  // --evented-pleg auto beside a readable kubelet: evented only once the
  // kubelet shows the EventedPLEG gate before 1.37 (issue 18, item 7).
  void follow_kubelet_model(const KubeletView& view);
  std::atomic<bool> evented_started_{false};

  mutable std::mutex condition_mu_;
  NodeConditionState node_condition_;

  std::atomic<uint64_t> relist_count_{0};
  std::atomic<bool> stopping_{false};
  std::thread consumer_;
};

}  // namespace plegscope
