#pragma once
// The kubelet's GenericPLEG: relist the runtime every period, compare with
// the previous relist, emit lifecycle events, keep the pod status cache.
#include <prometheus/collectable.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "cri/runtime_client.h"
#include "pleg/pleg.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_directory.h"
#include "pleg/pod_records.h"
#include "pleg/pleg_options.h"
#include "pleg/pod_status_cache.h"
#include "pleg/relist_backoff.h"
#include "pleg/relist_record.h"
#include "pleg/relist_steps.h"
#include "pleg/runtime_pods.h"

namespace plegscope {

struct GenericPlegOptions {
  size_t event_channel_capacity = 1000;
  RelistTiming timing = kGenericRelistTiming;
  // Do no harm: the longest the period stretches while the runtime struggles;
  // zero turns stretching off (relist_backoff.h has the rule).
  Duration backoff_max = std::chrono::seconds(10);
  // Which kubelet release's PLEG to copy (pleg_options.h); set_model()
  // changes it once the kubelet's version is read.
  KubeletModel model = newest_kubelet_model();
};

// The kubelet's queue of on-demand pod relists holds 200 requests; more are
// dropped (and logged), as its RequestRelist does.
inline constexpr size_t kPodRelistQueue = 200;

// Thread-safe. relist() is serialised: at most one is in flight, whoever calls it.
// Time: every period, threshold, interval and age is on the clock's monotonic
// time; wall time only stamps what is exported or shown as a date.
class GenericPleg final : public PodLifecycleEventGenerator, public prometheus::Collectable {
 public:
  using RelistObserver = std::function<void(const RelistRecord&)>;

  GenericPleg(RuntimeClient& runtime, const Clock& clock, PodStatusCache& cache,
              PlegMetrics& metrics, GenericPlegOptions options, RelistObserver observer = {});
  ~GenericPleg() override;

  // Runs relist() on a thread, the next one starting one period after the
  // previous one ended (the kubelet's timer, reset after each relist),
  // waiting on the clock. The period is current_period(): the timing's,
  // stretched while the runtime struggles. Between relists the same thread
  // serves the on-demand pod relists (1.36+ models), as the kubelet's
  // workerLoopIteration does: the global relist first whenever it is due,
  // else one queued pod; a request older than the start of the last
  // successful relist is already served and skipped.
  void start() override;
  void stop() override;
  void update(RelistTiming timing) override;
  EventChannel& watch() override { return events_; }
  HealthStatus healthy() const override;
  void relist() override;

  // The kubelet release copied. Thread-safe; takes effect at the next relist.
  void set_model(const KubeletModel& model);
  KubeletModel model() const;

  // The kubelet's RequestRelist: queue an on-demand relist of one pod for
  // the runner (a no-op for models before 1.36). Never blocks; a full
  // queue drops the request.
  void request_relist(const std::string& uid);
  // The kubelet's relistPod, on the calling thread under the relist lock:
  // ListPodSandbox and ListContainers filtered by the pod's uid label, then
  // the pod's events, inspection and re-inspection as in a relist. While it
  // runs it is the relist in progress (progress() names the pod). Tests
  // call it directly; the runner calls it for queued requests.
  void relist_pod(const std::string& uid);
  size_t queued_pod_relists() const;

  RelistTiming timing() const;
  // The period the runner waits now; longer than timing().period while stretched.
  Duration current_period() const;
  // Set while the period is stretched, with a one-line reason.
  std::optional<RelistStretch> stretch() const;
  // Start of the last successful relist (wall time); nullopt before the first.
  std::optional<TimePoint> last_relist_time() const;
  // The same instant on the monotonic clock.
  std::optional<MonoTime> last_relist_monotonic() const;
  // Monotonic time since the start of the last successful relist; nullopt
  // before the first. Immune to wall-clock steps.
  std::optional<Duration> last_seen_age() const;
  // Start of the relist in progress, if one is.
  std::optional<TimePoint> relist_in_progress_since() const;
  // The relist in progress as far as it got (lists done, status calls and
  // events so far, duration up to now); nullopt between relists.
  std::optional<RelistRecord> progress() const;
  size_t pods_to_reinspect() const;
  // How many entries each per-pod structure holds (as of the last relist
  // for the records), for /debug/sizes: they follow what the runtime lists.
  std::vector<std::pair<std::string, size_t>> structure_sizes() const;
  // The pod a per-pod CRI call was for, among the pods inspected lately
  // (never blocks on a relist in progress).
  std::optional<PodIdentity> find_pod(const CallTarget& target) const { return directory_.find(target); }
  // The runtime's state of each (pod uid, container or sandbox id) at the
  // last delivered relist, "" for an id it does not list; nullopt while a
  // relist runs (never waits on one).
  std::optional<std::vector<std::string>> container_states(
      const std::vector<std::pair<std::string, std::string>>& uid_ids) const;
  // The directory find_pod reads; the evented PLEG adds the pods its events name.
  PodDirectory& directory() { return directory_; }

  // pleg_last_seen_age_seconds, computed at scrape time (absent before the
  // first successful relist).
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  // The steps of relist(), in order; relist_mu_ held.
  RelistRecord begin_relist();
  // Lists every sandbox and container; false, with the error recorded in
  // `record`, counted and logged, when a list call failed.
  bool list_pods(RelistRecord& record, CallResult<SandboxList>& sandboxes,
                 CallResult<ContainerList>& containers);
  void mark_seen(const RelistRecord& record);
  void record_states(const SandboxList& sandboxes, const ContainerList& containers,
                     RelistRecord& record);
  // reconcilePodRecord for every pod with events, then for every pod whose
  // inspection is still owed (a failed one, retried every relist).
  void deliver(EventsByPod& events_by_pod, RelistRecord& record, const KubeletModel& model);
  void finish_relist(RelistRecord& record, GrpcCode strain);
  // generic.go's reconcilePodRecord for one pod: inspect it when it has
  // events or is owed an inspection, then commit its record and send its
  // events; a failed inspection owes another. True when the pod, still
  // listed, has a sandbox or container newly started: what a kubelet sync
  // that acted leaves behind.
  bool reconcile(const std::string& uid, std::vector<PodLifecycleEvent>& events, RelistRecord& record,
                 const KubeletModel& model);
  void publish_reinspect_count();

  bool inspect(const std::string& uid, const RuntimePod* pod, bool lists, RelistRecord& record,
               const std::vector<PodLifecycleEvent>* events);
  void publish_progress(const RelistRecord& record);
  MonoTime last_relist_end_or_now() const;
  void run();

  RuntimeClient& runtime_;
  const Clock& clock_;
  PodStatusCache& cache_;
  PlegMetrics& metrics_;
  RelistObserver observer_;
  EventChannel events_;
  PodDirectory directory_;  // own lock: read while a relist hangs

  mutable std::mutex relist_mu_;  // held for a whole relist; guards the records below
  PodRecords records_;
  NamedPods named_pods_;  // the relist thread's
  // Pods owed an inspection: their last one failed. The kubelet keeps uids
  // only and inspects the pod as the runtime lists it now.
  std::set<std::string> pods_to_reinspect_;
  // A relist has delivered: the first one finds every running container
  // "started", which is the node as it was, not the kubelet acting.
  bool delivered_once_ = false;
  PodGrouping grouping_;  // reused by every relist
  // The wall time at which the relist holding relist_mu_ began: its events',
  // the cache's and pleg_last_seen_seconds' time. Its record carries only the
  // monotonic start, placed on the wall axis by whoever reads the record
  // (ClockReading::place): one authority for the timeline's instants.
  TimePoint relist_wall_start_{};
  std::optional<GrpcCode> last_error_code_;  // of the last failed relist; none after a success

  mutable std::mutex state_mu_;  // short; guards timing, model and times
  RelistTiming timing_;
  KubeletModel model_;
  RelistBackoff backoff_;
  std::optional<TimePoint> relist_time_;       // wall
  std::optional<MonoTime> relist_monotonic_;   // the same instant, monotonic
  std::optional<MonoTime> last_relist_end_;    // monotonic; the runner's wait starts here
  std::optional<RelistRecord> in_progress_;
  size_t reinspect_count_ = 0;
  size_t records_count_ = 0;  // records_.size() at the end of the last relist

  struct PodRelistRequest {
    std::string uid;
    MonoTime at;
  };
  mutable std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool stopping_ = false;
  std::deque<PodRelistRequest> pod_relists_;  // guarded by run_mu_
  size_t pod_relists_dropped_ = 0;
  std::thread runner_;
};

}  // namespace plegscope
