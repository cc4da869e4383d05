#include "pleg/generic_pleg.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <set>

#include "common/go_duration.h"
#include "pleg/pod_inspector.h"
#include "pleg/transitions.h"

namespace plegscope {
namespace {

// Every container and sandbox id in either pod, each once, in a stable order.
std::vector<std::string> ids_in(const std::optional<RuntimePod>& a,
                                const std::optional<RuntimePod>& b) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const auto* pod : {a ? &*a : nullptr, b ? &*b : nullptr}) {
    if (!pod) continue;
    for (const auto* list : {&pod->containers, &pod->sandboxes})
      for (const auto& c : *list)
        if (seen.insert(c.id).second) ids.push_back(c.id);
  }
  return ids;
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
  std::unique_lock<std::mutex> lock(run_mu_);
  while (!stopping_) {
    lock.unlock();
    relist();
    lock.lock();
    TimePoint ended = WallClock::now();
    // The deadline is recomputed on every wake-up: update() may have
    // shortened the period (evented fall-back) while we wait.
    while (!stopping_) {
      TimePoint next = ended + current_period();
      if (WallClock::now() >= next) break;
      run_cv_.wait_until(lock, next);
    }
  }
}

HealthStatus GenericPleg::healthy() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!relist_time_) return {false, "pleg has yet to be successful"};
  Duration elapsed = clock_.now() - *relist_time_;
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

std::optional<TimePoint> GenericPleg::relist_in_progress_since() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!in_progress_) return std::nullopt;
  return in_progress_->start;
}

std::optional<RelistRecord> GenericPleg::progress() const {
  TimePoint now = clock_.now();
  std::lock_guard<std::mutex> lock(state_mu_);
  if (!in_progress_) return std::nullopt;
  RelistRecord r = *in_progress_;
  r.duration = now - r.start;
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

bool GenericPleg::update_cache(const RuntimePod* pod, const std::string& uid,
                               RelistRecord& record) {
  if (pod == nullptr) {
    // The pod is gone from the runtime: nothing to inspect.
    cache_.remove(uid);
    return true;
  }
  directory_.remember(*pod);  // before the calls: a hung one is named too
  InspectionCost cost;
  auto status = inspect_pod(runtime_, clock_, uid, pod->name, pod->namespace_, cost);
  record.status_calls += cost.calls;
  record.status_time += cost.time;
  record.pods_inspected++;
  publish_progress(record);
  if (!status.ok()) {
    record.inspection_failures++;
    spdlog::debug("PLEG: pod {}/{} ({}) failed inspection: {} {}", pod->namespace_, pod->name,
                  uid, grpc_code_name(status.status.code), status.status.message);
    return false;
  }
  cache_.set(std::move(status.value));
  return true;
}

void GenericPleg::relist() {
  std::lock_guard<std::mutex> relist_lock(relist_mu_);
  RelistRecord record;
  const TimePoint timestamp = clock_.now();
  record.start = timestamp;
  record.in_progress = true;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    if (relist_time_) metrics_.relist_interval.Observe(to_seconds(timestamp - *relist_time_));
    // Until one succeeds, every pod a relist finds is new to it.
    record.initial = !relist_time_.has_value();
    in_progress_ = record;
  }
  int strain_code = 0;  // a failed list call's code, if it reached the runtime
  auto finish = [&] {
    record.duration = clock_.now() - timestamp;
    record.in_progress = false;
    metrics_.relist_duration.Observe(to_seconds(record.duration));
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      in_progress_.reset();
      record.pods_to_reinspect = static_cast<int>(reinspect_count_);
      backoff_.record({record.duration, strain_code});
      metrics_.relist_period.Set(to_seconds(backoff_.period()));
    }
    if (observer_) observer_(record);
  };

  // GetPods(all=true): every sandbox and container, whatever its state.
  auto sandboxes = runtime_.list_all_pod_sandboxes();
  CallResult<ContainerList> containers;
  if (sandboxes.ok()) {
    record.lists_done = 1;
    record.list_time = clock_.now() - timestamp;
    publish_progress(record);
    containers = runtime_.list_all_containers();
    if (containers.ok()) record.lists_done = 2;
  }
  record.list_time = clock_.now() - timestamp;
  const CallStatus& list_status = sandboxes.ok() ? containers.status : sandboxes.status;
  if (!list_status.ok()) {
    record.error_code = grpc_code(list_status.code);
    record.error_message = list_status.message;
    const std::string code_name = grpc_code_name(*record.error_code);
    metrics_.relist_errors(code_name).Increment();
    if (!list_status.not_sent) strain_code = list_status.code;
    // Once per change of error, not once a second while the runtime is away.
    auto level = record.error_code == last_error_code_ ? spdlog::level::debug : spdlog::level::warn;
    spdlog::log(level, "GenericPLEG: Unable to retrieve pods: {} {}", code_name, list_status.message);
    last_error_code_ = record.error_code;
    finish();
    return;
  }
  if (last_error_code_) {
    spdlog::info("GenericPLEG: relist succeeded again after {}", grpc_code_name(*last_error_code_));
    last_error_code_.reset();
  }
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    relist_time_ = timestamp;
  }
  metrics_.last_seen.Set(unix_seconds(timestamp));

  record.sandboxes = static_cast<int>(sandboxes.value.size());
  record.containers = static_cast<int>(containers.value.size());
  std::array<int, 4> by_state{};  // indexed by RuntimeState
  for (const auto& c : containers.value)
    by_state[static_cast<size_t>(from_cri(static_cast<cri::ContainerState>(c.state)))]++;
  for (auto state : {RuntimeState::Created, RuntimeState::Running, RuntimeState::Exited,
                     RuntimeState::Unknown})
    metrics_.running_containers(runtime_state_name(state)).Set(by_state[static_cast<size_t>(state)]);
  record.running_containers = by_state[static_cast<size_t>(RuntimeState::Running)];
  record.exited_containers = by_state[static_cast<size_t>(RuntimeState::Exited)];
  grouping_.group(sandboxes.value, containers.value);
  record.pods = static_cast<int>(grouping_.size());
  int running_pods = 0;
  for (size_t i = 0; i < grouping_.size(); ++i) {
    const auto& sandboxes_of_pod = grouping_[i].sandboxes;
    running_pods += std::any_of(sandboxes_of_pod.begin(), sandboxes_of_pod.end(), [](const auto* s) {
      return s->state == cri::SANDBOX_READY;
    });
  }
  metrics_.running_pods.Set(running_pods);

  // podRecords.setCurrent, for the pods that may have changed. A pod whose
  // ids and states are those of its old record is compared where the answer
  // holds it and never copied: on a steady node, no pod is.
  std::vector<std::pair<const std::string, PodRecord>*> changed;
  for (auto& [uid, rec] : records_) {
    rec.current.reset();
    rec.seen = false;
  }
  for (size_t i = 0; i < grouping_.size(); ++i) {
    const PodView& view = grouping_[i];
    uid_key_.assign(view.uid.data(), view.uid.size());  // reused: no allocation per lookup
    auto it = records_.find(uid_key_);
    if (it == records_.end()) it = records_.emplace(uid_key_, PodRecord{}).first;
    it->second.seen = true;
    if (it->second.old && same_state(view, *it->second.old)) continue;
    it->second.current = to_runtime_pod(view);
    changed.push_back(&*it);
  }
  for (auto it = records_.begin(); it != records_.end();) {
    if (it->second.seen) {
      ++it;
    } else if (!it->second.old) {
      it = records_.erase(it);  // neither old nor current: nothing left to compare
    } else {
      changed.push_back(&*it++);  // gone from the runtime
    }
  }

  // Compare old and current, per pod, for every container and sandbox id.
  std::map<std::string, std::vector<PodLifecycleEvent>> events_by_pod;
  for (auto* entry : changed) {
    const std::string& uid = entry->first;
    const PodRecord& rec = entry->second;
    const RuntimePod* old_pod = rec.old ? &*rec.old : nullptr;
    const RuntimePod* new_pod = rec.current ? &*rec.current : nullptr;
    for (const auto& id : ids_in(rec.old, rec.current)) {
      for (auto& e : generate_events(uid, id, state_in(old_pod, id), state_in(new_pod, id))) {
        const RuntimePod* named = new_pod ? new_pod : old_pod;
        const RuntimeContainer* c = new_pod && new_pod->find(id) ? new_pod->find(id)
                                                                 : (old_pod ? old_pod->find(id) : nullptr);
        e.time = timestamp;
        e.pod_name = named->name;
        e.pod_namespace = named->namespace_;
        e.container_name = c ? c->name : "";
        events_by_pod[uid].push_back(std::move(e));
      }
    }
  }

  // What changed is known now, before any pod is inspected: a storm is
  // visible (with its top pods) from the relist in progress.
  std::vector<PodEventCount> pod_counts;
  for (const auto& [uid, events] : events_by_pod) {
    pod_counts.push_back({uid, events.front().pod_name, events.front().pod_namespace, static_cast<int>(events.size())});
    record.events_found += static_cast<int>(events.size());
  }
  record.pods_changed = static_cast<int>(events_by_pod.size());
  std::sort(pod_counts.begin(), pod_counts.end(), [](const auto& a, const auto& b) { return a.events > b.events; });
  if (pod_counts.size() > RelistRecord::kTopPods) pod_counts.resize(RelistRecord::kTopPods);
  record.top_pods = std::move(pod_counts);
  publish_progress(record);

  std::map<std::string, RuntimePod> needs_reinspection;
  for (auto& [uid, events] : events_by_pod) {
    auto& rec = records_[uid];
    const RuntimePod* pod = rec.current ? &*rec.current : nullptr;
    // A failed inspection leaves the pod's record as it was, so the same
    // events are found again next relist; nothing is lost.
    if (!update_cache(pod, uid, record)) {
      needs_reinspection[uid] = *pod;
      continue;
    }
    pods_to_reinspect_.erase(uid);
    record.pods_with_events++;

    // podRecords.update
    if (rec.current) {
      rec.old = std::move(rec.current);
      rec.current.reset();
    } else {
      records_.erase(uid);
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
  }

  if (record.events_discarded > 0)
    spdlog::error("Event channel is full, discarded {} events of this relist() cycle",
                  record.events_discarded);

  // Retry the pods whose inspection failed last time.
  for (auto& [uid, pod] : pods_to_reinspect_) {
    if (!update_cache(&pod, uid, record)) needs_reinspection[uid] = pod;
  }
  cache_.update_time(timestamp);
  pods_to_reinspect_ = std::move(needs_reinspection);
  metrics_.pods_to_reinspect.Set(static_cast<double>(pods_to_reinspect_.size()));
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    reinspect_count_ = pods_to_reinspect_.size();
  }

  finish();
}

}  // namespace plegscope
