#include "pleg/generic_pleg.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/go_duration.h"
#include "common/metric_family.h"
#include "common/thread_name.h"

namespace plegscope {
namespace {

// A sandbox or container in `now` that `before` (the pod's previous record,
// nullptr for a pod not listed before) did not hold: something created it.
bool holds_new_ids(const RuntimePod& now, const RuntimePod* before) {
  auto is_new = [&](const RuntimeContainer& c) { return before == nullptr || before->find(c.id) == nullptr; };
  return std::any_of(now.sandboxes.begin(), now.sandboxes.end(), is_new) ||
         std::any_of(now.containers.begin(), now.containers.end(), is_new);
}

}  // namespace

GenericPleg::GenericPleg(RuntimeClient& runtime, const Clock& clock, PodStatusCache& cache,
                         PlegMetrics& metrics, GenericPlegOptions options, RelistObserver observer)
    : runtime_(runtime),
      clock_(clock),
      cache_(cache),
      metrics_(metrics),
      observer_(std::move(observer)),
      events_(options.event_channel_capacity),
      timing_(options.timing),
      model_(options.model),
      backoff_(options.timing.period, options.backoff_max) {
  metrics_.relist_period.Set(to_seconds(options.timing.period));
  metrics_.relist_threshold.Set(to_seconds(options.timing.threshold));
}

GenericPleg::~GenericPleg() { stop(); }

void GenericPleg::start() {
  std::lock_guard<std::mutex> lock(run_mu_);
  if (runner_.joinable()) return;
  stopping_ = false;
  runner_ = std::thread([this] { run(); });
}

void GenericPleg::stop() {
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    stopping_ = true;
  }
  run_cv_.notify_all();
  if (runner_.joinable() && runner_.get_id() != std::this_thread::get_id()) runner_.join();
}

void GenericPleg::update(RelistTiming timing) {
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    timing_ = timing;
    backoff_.set_base(timing.period);
    metrics_.relist_period.Set(to_seconds(backoff_.period()));
    metrics_.relist_threshold.Set(to_seconds(timing.threshold));
  }
  // Wake the runner so a shorter period takes effect now, not after the old
  // one; taking run_mu_ first means the wake-up cannot fall between its check
  // and its wait.
  { std::lock_guard<std::mutex> lock(run_mu_); }
  run_cv_.notify_all();
}

void GenericPleg::set_model(const KubeletModel& model) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (model_ == model) return;
  spdlog::info("GenericPLEG: copying the {}.{} kubelet's PLEG (pod status {}, on-demand pod relists {})",
               model.major, model.minor, model.status_lists ? "with its lists" : "from the relist's ids",
               model.pod_relists ? "on" : "off");
  model_ = model;
}

KubeletModel GenericPleg::model() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return model_;
}

RelistTiming GenericPleg::timing() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return timing_;
}

Duration GenericPleg::current_period() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return backoff_.period();
}

std::optional<RelistStretch> GenericPleg::stretch() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return backoff_.stretch();
}

void GenericPleg::run() {
  name_this_thread("relist");
  std::unique_lock<std::mutex> lock(run_mu_);
  bool due = true;  // the kubelet's timer starts at 0: the first relist at once
  while (!stopping_) {
    if (due) {
      lock.unlock();
      relist();
      lock.lock();
      due = false;
      continue;
    }
    // Sliding: the wait starts when the last relist ended (set before its
    // observer ran, so a test that steps the clock from the observer is not
    // lost). The deadline is recomputed on every wake-up: update() may have
    // shortened the period (evented fall-back) while we wait.
    const MonoTime next = last_relist_end_or_now() + current_period();
    if (clock_.monotonic() >= next) {
      due = true;  // the global relist goes before any queued pod
      continue;
    }
    if (!pod_relists_.empty()) {
      PodRelistRequest request = std::move(pod_relists_.front());
      pod_relists_.pop_front();
      lock.unlock();
      // generic.go: served only if no relist has started since the request
      // (that one listed the pod already). The kubelet's clock always moves
      // between the two; on an injected one they may be equal: served.
      const auto since = last_relist_monotonic();
      if (!since || request.at >= *since) relist_pod(request.uid);
      lock.lock();
      continue;
    }
    clock_.wait_until(lock, run_cv_, next);
  }
}

HealthStatus GenericPleg::healthy() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!relist_time_) return {false, "pleg has yet to be successful"};
  Duration elapsed = clock_.monotonic() - *relist_monotonic_;
  if (elapsed > timing_.threshold) {
    return {false, "pleg was last seen active " + format_go_duration(elapsed) +
                       " ago; threshold is " + format_go_duration(timing_.threshold)};
  }
  return {true, ""};
}

std::optional<TimePoint> GenericPleg::last_relist_time() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return relist_time_;
}

std::optional<MonoTime> GenericPleg::last_relist_monotonic() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return relist_monotonic_;
}

std::optional<Duration> GenericPleg::last_seen_age() const {
  const MonoTime now = clock_.monotonic();
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!relist_monotonic_) return std::nullopt;
  return now - *relist_monotonic_;
}

std::vector<prometheus::MetricFamily> GenericPleg::Collect() const {
  auto family = gauge_family("pleg_last_seen_age_seconds",
                             "Seconds since the start of the last successful relist, on the "
                             "agent's monotonic clock (immune to wall-clock steps).");
  if (auto age = last_seen_age()) add_gauge(family, {}, to_seconds(*age));
  return {family};
}

MonoTime GenericPleg::last_relist_end_or_now() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return last_relist_end_ ? *last_relist_end_ : clock_.monotonic();
}

std::optional<TimePoint> GenericPleg::relist_in_progress_since() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!in_progress_) return std::nullopt;
  return in_progress_->start;
}

std::optional<RelistRecord> GenericPleg::progress() const {
  const MonoTime now = clock_.monotonic();
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!in_progress_) return std::nullopt;
  RelistRecord r = *in_progress_;
  r.duration = now - r.monotonic_start;
  return r;
}

void GenericPleg::publish_progress(const RelistRecord& record) {
  std::lock_guard<std::mutex> lock(state_mu_);
  in_progress_ = record;
}

size_t GenericPleg::pods_to_reinspect() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return reinspect_count_;
}

std::vector<std::pair<std::string, size_t>> GenericPleg::structure_sizes() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return {{"pod_records", records_count_},
          {"pods_to_reinspect", reinspect_count_},
          {"pod_directory_pods", directory_.size()},
          {"pod_directory_ids", directory_.ids()},
          {"pod_status_cache", cache_.size()}};
}

std::optional<std::vector<std::string>> GenericPleg::container_states(
    const std::vector<std::pair<std::string, std::string>>& uid_ids) const {
  std::unique_lock<std::mutex> lock(relist_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return std::nullopt;
  std::vector<std::string> out;
  out.reserve(uid_ids.size());
  for (const auto& [uid, id] : uid_ids) {
    const RuntimePod* pod = records_.old_pod(uid);
    const RuntimeContainer* c = pod ? pod->find(id) : nullptr;
    out.emplace_back(c ? runtime_state_name(c->state) : "");
  }
  return out;
}

RelistRecord GenericPleg::begin_relist() {
  RelistRecord record;
  relist_wall_start_ = clock_.now();
  record.monotonic_start = clock_.monotonic();
  record.in_progress = true;
  std::lock_guard<std::mutex> lock(state_mu_);
  if (relist_monotonic_)
    metrics_.relist_interval.Observe(to_seconds(record.monotonic_start - *relist_monotonic_));
  // Until one succeeds, every pod a relist finds is new to it.
  record.initial = !relist_time_.has_value();
  in_progress_ = record;
  return record;
}

bool GenericPleg::list_pods(RelistRecord& record, CallResult<SandboxList>& sandboxes,
                            CallResult<ContainerList>& containers) {
  // GetPods(all=true): every sandbox and container, whatever its state.
  sandboxes = runtime_.list_all_pod_sandboxes();
  if (sandboxes.ok()) {
    record.lists_done = 1;
    record.list_time = clock_.monotonic() - record.monotonic_start;
    publish_progress(record);
    containers = runtime_.list_all_containers();
    if (containers.ok()) record.lists_done = 2;
  }
  record.list_time = clock_.monotonic() - record.monotonic_start;
  const CallStatus& status = sandboxes.ok() ? containers.status : sandboxes.status;
  if (status.ok()) {
    if (last_error_code_) {
      spdlog::info("GenericPLEG: relist succeeded again after {}", grpc_code_name(*last_error_code_));
      last_error_code_.reset();
    }
    return true;
  }
  record.error_code = status.code;
  record.error_message = status.message;
  const std::string code_name = grpc_code_name(status.code);
  metrics_.relist_errors(code_name).Increment();
  // Once per change of error, not once a second while the runtime is away.
  auto level = record.error_code == last_error_code_ ? spdlog::level::debug : spdlog::level::warn;
  spdlog::log(level, "GenericPLEG: Unable to retrieve pods: {} {}", code_name, status.message);
  last_error_code_ = record.error_code;
  return false;
}

void GenericPleg::mark_seen(const RelistRecord& record) {
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    relist_time_ = relist_wall_start_;
    relist_monotonic_ = record.monotonic_start;
  }
  metrics_.last_seen.Set(unix_seconds(relist_wall_start_));
}

void GenericPleg::record_states(const SandboxList& sandboxes, const ContainerList& containers,
                                RelistRecord& record) {
  record.sandboxes = static_cast<int>(sandboxes.size());
  record.containers = static_cast<int>(containers.size());
  const auto by_state = count_container_states(containers);
  for (auto state : {RuntimeState::Created, RuntimeState::Running, RuntimeState::Exited,
                     RuntimeState::Unknown})
    metrics_.running_containers(runtime_state_name(state)).Set(by_state[static_cast<size_t>(state)]);
  record.running_containers = by_state[static_cast<size_t>(RuntimeState::Running)];
  record.exited_containers = by_state[static_cast<size_t>(RuntimeState::Exited)];
  grouping_.group(sandboxes, containers);
  record.pods = static_cast<int>(grouping_.size());
  metrics_.running_pods.Set(count_running_pods(grouping_));
}

bool GenericPleg::inspect(const std::string& uid, const RuntimePod* pod, bool lists, RelistRecord& record,
                          const std::vector<PodLifecycleEvent>* events) {
  // The initial relist finds containers that changed before the agent
  // watched: their age is not a lag.
  const bool measure = events != nullptr && !record.initial;
  if (pod != nullptr)
    directory_.remember(*pod);  // before the calls: a hung one is named too
  else
    directory_.unlist(uid);  // gone from the lists: a helper still serving it is a leak
  bool ok = update_cache(runtime_, clock_, cache_, uid, pod, lists, record, [&](const PodStatus& status) {
    if (measure) record_lag(*events, status, clock_.now(), metrics_, record.lag);
  });
  if (pod != nullptr) publish_progress(record);
  return ok;
}

bool GenericPleg::reconcile(const std::string& uid, std::vector<PodLifecycleEvent>& events, RelistRecord& record,
                            const KubeletModel& model) {
  const bool reinspect = pods_to_reinspect_.erase(uid) > 0;
  if (events.empty() && !reinspect) return false;
  // The pod as listed now (the kubelet's podRecords current): a pod owed an
  // inspection that is gone from the runtime only leaves the cache.
  const RuntimePod* pod = records_.listed_pod(uid);
  // A failed inspection leaves the pod's record as it was, so the same
  // events are found again next relist; nothing is lost.
  if (!inspect(uid, pod, model.status_lists, record, events.empty() ? nullptr : &events)) {
    pods_to_reinspect_.insert(uid);
    return false;
  }
  // records_.update() moves the listed pod: what is needed of it, first.
  // Only the releases that relist a pod on demand need to know (a changed
  // pod's ids against its record, every relist).
  const bool created = model.pod_relists && pod != nullptr && holds_new_ids(*pod, records_.old_pod(uid));
  if (events.empty()) {
    PodLifecycleEvent sync;
    sync.pod_uid = uid;
    sync.type = PodLifecycleEventType::PodSync;
    sync.time = relist_wall_start_;
    if (pod) {
      sync.pod_name = pod->name;
      sync.pod_namespace = pod->namespace_;
    }
    records_.update(uid);
    if (!model.pod_sync_after_reinspection) return false;
    events.push_back(std::move(sync));
  } else {
    record.pods_with_events++;
    records_.update(uid);
  }
  for (auto& e : events) {
    record.events_by_type[event_type_index(e.type)]++;
    metrics_.events(e.type).Increment();
    // ContainerChanged is counted but, as in the kubelet, never sent.
    if (e.type == PodLifecycleEventType::ContainerChanged) continue;
    if (!events_.try_send(e)) {
      metrics_.discard_events.Increment();
      record.events_discarded++;
    }
  }
  return created;
}

void GenericPleg::deliver(EventsByPod& events_by_pod, RelistRecord& record, const KubeletModel& model) {
  // The kubelet relists a pod on demand after a SyncPod that acted and
  // succeeded (kubelet.go: SyncResults non-empty and no error, 1.36 and
  // 1.37). The agent makes no syncs; what it sees of such a sync is what
  // the sync created: a sandbox or container the runtime did not list
  // before, a new pod's or a restart's, running or already exited (a fast
  // crash loop's instance may be dead by the agent's next relist). A death
  // alone is not one: the sync after a crash starts the container again
  // (seen as a new one) or fails in back-off (no relist), and a pod torn
  // down goes through SyncTerminatingPod, which requests none. What the
  // agent's own pod relist finds is the result of the relist it mirrors,
  // so only the global relist asks.
  for (auto& [uid, events] : events_by_pod)
    if (reconcile(uid, events, record, model) && delivered_once_) request_relist(uid);
  delivered_once_ = true;
  // Pods owed an inspection whose comparison found nothing: the kubelet
  // walks every pod record and retries these in the same pass.
  std::vector<std::string> owed;
  for (const auto& uid : pods_to_reinspect_)
    if (!events_by_pod.count(uid)) owed.push_back(uid);
  for (const auto& uid : owed) {
    std::vector<PodLifecycleEvent> none;
    reconcile(uid, none, record, model);
  }
  if (record.events_discarded > 0)
    spdlog::error("Event channel is full, discarded {} events of this relist() cycle",
                  record.events_discarded);
}

void GenericPleg::publish_reinspect_count() {
  metrics_.pods_to_reinspect.Set(static_cast<double>(pods_to_reinspect_.size()));
  std::lock_guard<std::mutex> lock(state_mu_);
  reinspect_count_ = pods_to_reinspect_.size();
}

void GenericPleg::finish_relist(RelistRecord& record, GrpcCode strain) {
  const MonoTime ended = clock_.monotonic();
  record.duration = ended - record.monotonic_start;
  record.in_progress = false;
  metrics_.relist_duration.Observe(to_seconds(record.duration));
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    in_progress_.reset();
    last_relist_end_ = ended;
    record.pods_to_reinspect = static_cast<int>(reinspect_count_);
    records_count_ = records_.size();
    backoff_.record({record.duration, strain});
    metrics_.relist_period.Set(to_seconds(backoff_.period()));
  }
  if (observer_) observer_(record);
}

void GenericPleg::relist() {
  std::lock_guard<std::mutex> relist_lock(relist_mu_);
  const KubeletModel model = this->model();
  RelistRecord record = begin_relist();
  CallResult<SandboxList> sandboxes;
  CallResult<ContainerList> containers;
  if (!list_pods(record, sandboxes, containers)) {
    // A failed list call that reached the runtime strains it; a missing socket does not.
    const CallStatus& failed = sandboxes.ok() ? containers.status : sandboxes.status;
    finish_relist(record, failed.not_sent ? GrpcCode::kOk : failed.code);
    return;
  }
  mark_seen(record);
  record_states(sandboxes.value, containers.value, record);

  // What changed is known now, before any pod is inspected: a storm is
  // visible (with its top pods) from the relist in progress.
  EventsByPod events_by_pod = compute_events(records_, grouping_, relist_wall_start_);
  for (const auto& [uid, events] : events_by_pod) record.events_found += static_cast<int>(events.size());
  record.pods_changed = static_cast<int>(events_by_pod.size());
  record.top_pods = top_pods(events_by_pod, RelistRecord::kTopPods, named_pods_);
  publish_progress(record);

  deliver(events_by_pod, record, model);
  cache_.update_time(relist_wall_start_);
  publish_reinspect_count();
  finish_relist(record, GrpcCode::kOk);
}

}  // namespace plegscope
