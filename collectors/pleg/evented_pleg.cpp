#include "pleg/evented_pleg.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "pleg/runtime_pods.h"
#include "common/thread_name.h"

namespace plegscope {
EventedPleg::EventedPleg(RuntimeClient& runtime, const Clock& clock, PodStatusCache& cache,
                         PodLifecycleEventGenerator& generic, PlegMetrics& metrics,
                         prometheus::Registry& registry, EventedPlegOptions options)
    : runtime_(runtime),
      clock_(clock),
      cache_(cache),
      generic_(generic),
      metrics_(metrics),
      options_(options),
      registry_(registry),
      mode_(prometheus::BuildGauge()
                .Name("pleg_evented_mode")
                .Help("1 while the evented PLEG (GetContainerEvents) is active, else 0.")
                .Register(registry)
                .Add({})),
      hint_(options.hint) {}

void EventedPleg::register_stream_counters() {
  std::call_once(stream_counters_once_, [this] {
    connection_errors_ = &prometheus::BuildCounter()
                              .Name("pleg_evented_connection_errors_total")
                              .Help("GetContainerEvents streams that failed or ended.")
                              .Register(registry_)
                              .Add({});
    connection_success_ = &prometheus::BuildCounter()
                               .Name("pleg_evented_connection_success_total")
                               .Help("GetContainerEvents streams that delivered events.")
                               .Register(registry_)
                               .Add({});
  });
}

EventedPleg::~EventedPleg() { stop(); }

void EventedPleg::start() {
  if (active_.exchange(true)) return;
  stopping_ = false;
  if (hint_) {
    spdlog::info("Evented PLEG: subscribing to GetContainerEvents as a hint (a stopped container "
                 "relists its pod); generic relist every {}s",
                 to_seconds(options_.generic_timing.period));
  } else {
    mode_.Set(1);
    generic_.update(kEventedRelistTiming);
    spdlog::info("Evented PLEG: subscribing to GetContainerEvents; generic relist every {}s",
                 to_seconds(kEventedRelistTiming.period));
  }
  watcher_ = std::thread([this] { watch_events(); });
}

void EventedPleg::set_hint(bool hint) {
  if (hint_.exchange(hint) == hint || !active_) return;
  mode_.Set(hint ? 0 : 1);
  generic_.update(hint ? options_.generic_timing : kEventedRelistTiming);
  spdlog::info("Evented PLEG: events are now {}; generic relist every {}s",
               hint ? "a hint for pod relists" : "the PLEG's source",
               to_seconds(hint ? options_.generic_timing.period : kEventedRelistTiming.period));
}

void EventedPleg::stop() {
  stopping_ = true;
  runtime_.cancel_event_stream();
  if (watcher_.joinable() && watcher_.get_id() != std::this_thread::get_id()) watcher_.join();
}

HealthStatus EventedPleg::healthy() const {
  if (hint_) return {true, ""};
  const EventChannel& channel = generic_.watch();
  if (channel.size() >= channel.capacity())
    return {false, "EventedPLEG: pleg event channel capacity is full with " +
                       std::to_string(channel.size()) + " events"};
  return {true, ""};
}

std::string EventedPleg::fallback_reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fallback_reason_;
}

void EventedPleg::watch_events() {
  name_this_thread("event-stream");
  register_stream_counters();
  int attempts = 0;
  while (!stopping_) {
    if (attempts >= options_.max_stream_retries) {
      fall_back("GetContainerEvents failed " + std::to_string(attempts) + " times");
      return;
    }
    bool delivered = false;
    CallStatus status = runtime_.watch_container_events([&](const cri::ContainerEventResponse& e) {
      if (!delivered) {
        delivered = true;
        connection_success_->Increment();
      }
      process(e);
      return !stopping_;
    });
    if (stopping_) return;
    // The kubelet counts every failed attempt, never resetting: a stream that
    // keeps breaking ends evented mode even if each attempt worked a while.
    connection_errors_->Increment();
    attempts++;
    spdlog::warn("Evented PLEG: failed to get container events ({} {}), attempt {} of {}",
                 grpc_code_name(status.code), status.message, attempts,
                 options_.max_stream_retries);
    if (status.code == GrpcCode::kUnimplemented && options_.fall_back_on_unimplemented) {
      fall_back("the runtime does not implement GetContainerEvents (UNIMPLEMENTED)");
      return;
    }
    // Catch up on what the broken stream may have missed; as a hint the
    // generic relist never stopped, and 1.37 only retries.
    if (!hint_) generic_.relist();
  }
}

void EventedPleg::fall_back(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    fallback_reason_ = reason;
  }
  active_ = false;
  mode_.Set(0);
  if (!hint_) generic_.update(options_.generic_timing);
  spdlog::warn("Evented PLEG: falling back to generic relisting every {}s: {}",
               to_seconds(options_.generic_timing.period), reason);
}

EventedLag& EventedPleg::lag_now() {
  const MonoTime now = clock_.monotonic();
  while (!lag_window_.empty() && now - lag_window_.front().first > kEventedLagWindow) lag_window_.pop_front();
  if (lag_window_.empty() || now - lag_window_.back().first >= std::chrono::seconds(1))
    lag_window_.emplace_back(now, EventedLag{});
  return lag_window_.back().second;
}

EventedLag EventedPleg::lag_over(Duration window) const {
  const MonoTime now = clock_.monotonic();
  EventedLag out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [at, lag] : lag_window_)
    if (now - at <= std::min(window, kEventedLagWindow)) out.merge(lag);
  return out;
}

void EventedPleg::send(PodLifecycleEvent event, int64_t created_at, TimePoint delivered,
                       TimePoint cached) {
  metrics_.events(event.type).Increment();
  const LagMeasure delivery = measure_lag(created_at, 0, delivered);
  const LagMeasure cache = measure_lag(created_at, 0, cached);
  {
    std::lock_guard<std::mutex> lock(mu_);
    EventedLag& lag = lag_now();
    if (delivery.kind == LagMeasure::Kind::kValid && cache.kind == LagMeasure::Kind::kValid) {
      PodLag sample{event.pod_uid, event.pod_namespace, event.pod_name,
                    event.container_name.empty() ? event.container_id : event.container_name,
                    event.type, delivery.lag};
      lag.delivery.add(sample);
      sample.lag = cache.lag;
      lag.cache_update.add(sample);
    } else {
      lag.delivery.add_invalid();
      lag.cache_update.add_invalid();
    }
  }
  if (delivery.kind == LagMeasure::Kind::kValid && cache.kind == LagMeasure::Kind::kValid) {
    metrics_.evented_delivery_lag(event.type).Observe(to_seconds(delivery.lag));
    metrics_.event_lag(event.type).Observe(to_seconds(cache.lag));
  } else {
    metrics_.event_lag_invalid(event.type).Increment();
  }
  if (!generic_.watch().try_send(std::move(event))) {
    metrics_.discard_events.Increment();
    spdlog::error("Evented PLEG: event channel is full, discarding event");
  }
}

void EventedPleg::count_invalid(cri::ContainerEventType type) {
  PodLifecycleEventType pleg_type;
  switch (type) {
    case cri::CONTAINER_STARTED_EVENT: pleg_type = PodLifecycleEventType::ContainerStarted; break;
    case cri::CONTAINER_STOPPED_EVENT:
    case cri::CONTAINER_DELETED_EVENT: pleg_type = PodLifecycleEventType::ContainerDied; break;
    default: return;  // CREATED makes no lifecycle event, so no lag either
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    EventedLag& lag = lag_now();
    lag.delivery.add_invalid();
    lag.cache_update.add_invalid();
  }
  metrics_.event_lag_invalid(pleg_type).Increment();
}

// The pod as the event shows it, for the directory that names pods (its
// sandbox and containers by id); gone from it once its sandbox is deleted.
void EventedPleg::remember(const cri::ContainerEventResponse& event, const PodStatus& status) {
  const auto& sandbox = event.pod_sandbox_status();
  if (event.container_event_type() == cri::CONTAINER_DELETED_EVENT && sandbox.id() == event.container_id()) {
    options_.directory->unlist(status.uid);
    return;
  }
  RuntimePod pod;
  pod.uid = status.uid;
  pod.name = status.name;
  pod.namespace_ = status.namespace_;
  pod.sandboxes.push_back({sandbox.id(), "", from_cri(sandbox.state())});
  for (const auto& c : event.containers_statuses())
    if (!(event.container_event_type() == cri::CONTAINER_DELETED_EVENT && c.id() == event.container_id()))
      pod.containers.push_back({c.id(), c.metadata().name(), from_cri(c.state())});
  options_.directory->remember(pod);
}

void EventedPleg::process(const cri::ContainerEventResponse& event) {
  if (!event.has_pod_sandbox_status() || !event.pod_sandbox_status().has_metadata()) {
    spdlog::error("Evented PLEG: event for container {} has no pod sandbox status; ignored",
                  event.container_id());
    return;
  }
  if (hint_) {
    // evented.go 1.37 processCRIEvents: only a stopped container asks for a
    // relist of its pod; the cache and the events stay the generic PLEG's.
    if (event.container_event_type() == cri::CONTAINER_STOPPED_EVENT && options_.request_relist)
      options_.request_relist(event.pod_sandbox_status().metadata().uid());
    return;
  }
  const TimePoint delivered = clock_.now();
  const auto& sandbox = event.pod_sandbox_status();
  PodStatus status;
  status.uid = sandbox.metadata().uid();
  status.name = sandbox.metadata().name();
  status.namespace_ = sandbox.metadata().namespace_();
  status.sandboxes.push_back(sandbox);
  status.containers.assign(event.containers_statuses().begin(), event.containers_statuses().end());
  status.timestamp = from_unix_nanos(event.created_at());

  bool send_events = false;
  if (event.container_event_type() == cri::CONTAINER_DELETED_EVENT) {
    // The sandbox itself was deleted: the pod is gone from the cache too.
    if (sandbox.id() == event.container_id()) cache_.remove(status.uid);
    send_events = true;
  } else {
    // Only an observation newer than the cached one produces events.
    send_events = cache_.set(status);
  }
  // Only what the cache took: a stale event must not bring a deleted pod back.
  if (options_.directory && send_events) remember(event, status);
  const int64_t created_at = event.created_at();
  if (!send_events) {
    // A zero created_at is older than anything cached, so the cache ignores
    // it: counted here, or a runtime sending no timestamps would look like
    // one sending nothing.
    if (created_at <= 0) count_invalid(event.container_event_type());
    return;
  }
  const TimePoint cached = clock_.now();

  PodLifecycleEvent e;
  e.pod_uid = status.uid;
  e.container_id = event.container_id();
  e.time = clock_.now();
  e.pod_name = status.name;
  e.pod_namespace = status.namespace_;
  for (const auto& c : event.containers_statuses())
    if (c.id() == event.container_id()) e.container_name = c.metadata().name();
  switch (event.container_event_type()) {
    case cri::CONTAINER_STARTED_EVENT:
      e.type = PodLifecycleEventType::ContainerStarted;
      send(e, created_at, delivered, cached);
      break;
    case cri::CONTAINER_STOPPED_EVENT:
      e.type = PodLifecycleEventType::ContainerDied;
      send(e, created_at, delivered, cached);
      break;
    case cri::CONTAINER_DELETED_EVENT:
      e.type = PodLifecycleEventType::ContainerDied;
      send(e, created_at, delivered, cached);
      e.type = PodLifecycleEventType::ContainerRemoved;
      send(e, created_at, delivered, cached);
      break;
    default:  // CREATED: the cache is updated, no lifecycle event (as generic)
      break;
  }
}

}  // namespace plegscope
