#pragma once
// The kubelet's EventedPLEG, in either of its two shapes. Before 1.37:
// lifecycle events straight from the runtime's GetContainerEvents stream,
// with the generic relist slowed to 300 s / 10 min as a safety net, and a
// fall-back to the generic PLEG at its normal pace when the stream keeps
// failing. From 1.37 (a hint): the stream only asks for an on-demand relist
// of the pod whose container stopped; the generic relist keeps its pace and
// makes every event, and there is no evented health check.
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/clock.h"
#include "cri/runtime_client.h"
#include "pleg/event_lag.h"
#include "pleg/pleg.h"
#include "pleg/pleg_metrics.h"
#include "pleg/pod_directory.h"
#include "pleg/pod_status_cache.h"

namespace plegscope {

// How far back the stream's lag is kept (/diagnose's event_lag.evented).
inline constexpr Duration kEventedLagWindow = std::chrono::minutes(10);

struct EventedPlegOptions {
  // The kubelet gives up on the stream after this many failed attempts.
  int max_stream_retries = 5;
  // With `auto`, a runtime that answers UNIMPLEMENTED is not retried.
  bool fall_back_on_unimplemented = true;
  // The generic PLEG's own timing, restored on fall-back.
  RelistTiming generic_timing = kGenericRelistTiming;
  // The generic PLEG's pod directory, told of the pods the events name, so a
  // pod created between two (300 s apart) relists is known too. May be null.
  PodDirectory* directory = nullptr;
  // 1.37+: the events are a hint (see above); set_hint() changes it.
  bool hint = false;
  // Where a hint goes: the generic PLEG's on-demand pod relist.
  std::function<void(const std::string& uid)> request_relist;
};

// Thread-safe.
class EventedPleg final : public PodLifecycleEventGenerator {
 public:
  // Shares `generic`'s event channel, as the kubelet's two PLEGs share one.
  EventedPleg(RuntimeClient& runtime, const Clock& clock, PodStatusCache& cache,
              PodLifecycleEventGenerator& generic, PlegMetrics& metrics,
              prometheus::Registry& registry, EventedPlegOptions options);
  ~EventedPleg() override;

  // Starts the stream; before 1.37 (not a hint) slows the generic relist to
  // the evented timing first.
  void start() override;
  void stop() override;
  void update(RelistTiming timing) override { generic_.update(timing); }
  EventChannel& watch() override { return generic_.watch(); }
  // Unhealthy only while the shared event channel is full; always healthy
  // as a hint (1.37 has no evented health check).
  HealthStatus healthy() const override;
  void relist() override { generic_.relist(); }

  // One event from the stream, as processCRIEvents handles it. Public so
  // tests drive it without a stream.
  void process(const cri::ContainerEventResponse& event);
  // The stream loop, one attempt after another, until it falls back or stops.
  // start() runs it on a thread; tests call it directly.
  void watch_events();

  bool active() const { return active_; }
  // Whether the events are only a hint (1.37+). Switching while active
  // restores or slows the generic relist's timing to match.
  void set_hint(bool hint);
  bool hint() const { return hint_; }
  // Active and driving the PLEG (before 1.37): the generic relist is slowed.
  bool drives_pleg() const { return active_ && !hint_; }
  // Why evented mode ended, empty while active or never started.
  std::string fallback_reason() const;
  // The lag of the events delivered over the last `window` (at most
  // kEventedLagWindow back: older seconds are dropped).
  EventedLag lag_over(Duration window) const;

 private:
  void fall_back(const std::string& reason);
  // An event whose created_at is unusable and that made no lifecycle event.
  void count_invalid(cri::ContainerEventType type);
  // Adds to the current second's entry of lag_window_; mu_ held.
  EventedLag& lag_now();
  void remember(const cri::ContainerEventResponse& event, const PodStatus& status);
  void send(PodLifecycleEvent event, int64_t created_at, TimePoint delivered, TimePoint cached);

  RuntimeClient& runtime_;
  const Clock& clock_;
  PodStatusCache& cache_;
  PodLifecycleEventGenerator& generic_;
  PlegMetrics& metrics_;
  const EventedPlegOptions options_;
  prometheus::Registry& registry_;
  prometheus::Gauge& mode_;
  // Registered when evented mode is first tried, so a generic-mode node
  // exports no evented counters (the mode gauge says which mode it is in).
  void register_stream_counters();
  std::once_flag stream_counters_once_;
  prometheus::Counter* connection_errors_ = nullptr;
  prometheus::Counter* connection_success_ = nullptr;

  std::atomic<bool> active_{false};
  std::atomic<bool> hint_{false};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mu_;
  std::string fallback_reason_;
  // One entry per second that had events, oldest first, none older than
  // kEventedLagWindow: bounded whatever the storm.
  std::deque<std::pair<MonoTime, EventedLag>> lag_window_;
  std::thread watcher_;
};

}  // namespace plegscope
