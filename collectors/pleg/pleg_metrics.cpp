#include "pleg/pleg_metrics.h"

#include "pleg/event_lag.h"

namespace plegscope {
namespace {

// The kubelet's relist buckets stop at 10 s; ours reach past the 3 min threshold.
const prometheus::Histogram::BucketBoundaries kRelistBuckets = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 5, 10, 30, 60, 120, 180, 300, 600};
// Lean: the kubelet's relist buckets, then the at-risk line (60 s), the
// threshold (180 s) and the top; full adds 1.5 s, 2 s, 120 s and 300 s.
const prometheus::Histogram::BucketBoundaries kLeanRelistBuckets = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180, 600};
// The time between relist starts sits at the period (1 s; up to 10 s while
// the agent spares a struggling runtime; 300 s in evented mode): the lean
// set brackets those and the thresholds.
const prometheus::Histogram::BucketBoundaries kLeanIntervalBuckets = {1,  1.5, 2,  10,
                                                                      60, 300, 600};
// Event lag: a healthy node's is within a relist period or two; the
// dashboards' line is at 5 s.
const prometheus::Histogram::BucketBoundaries kLeanLagBuckets = {0.1, 0.5, 1,  2.5,
                                                                 5,   10,  60, 600};

prometheus::Histogram& histogram(prometheus::Registry& registry, const char* name,
                                 const char* help,
                                 const prometheus::Histogram::BucketBoundaries& buckets) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(registry).Add({}, buckets);
}

prometheus::Histogram::BucketBoundaries lag_buckets(MetricDetail detail) {
  if (detail == MetricDetail::kLean) return kLeanLagBuckets;
  return {kLagBuckets.begin(), kLagBuckets.end()};
}

}  // namespace

PlegMetrics::PlegMetrics(prometheus::Registry& registry, MetricDetail detail)
    : relist_duration(histogram(registry, "pleg_relist_duration_seconds",
                                "Duration in seconds of PLEG relists.",
                                detail == MetricDetail::kFull ? kRelistBuckets : kLeanRelistBuckets)),
      relist_interval(histogram(registry, "pleg_relist_interval_seconds",
                                "Interval in seconds between the starts of PLEG relists.",
                                detail == MetricDetail::kFull ? kRelistBuckets
                                                              : kLeanIntervalBuckets)),
      last_seen(prometheus::BuildGauge()
                    .Name("pleg_last_seen_seconds")
                    .Help("Unix time in seconds of the start of the last successful relist.")
                    .Register(registry)
                    .Add({})),
      discard_events(prometheus::BuildCounter()
                         .Name("pleg_discard_events_total")
                         .Help("PLEG events dropped because the event channel was full.")
                         .Register(registry)
                         .Add({})),
      pods_to_reinspect(prometheus::BuildGauge()
                            .Name("pleg_pods_to_reinspect")
                            .Help("Pods whose inspection failed and will be retried next relist.")
                            .Register(registry)
                            .Add({})),
      running_pods(prometheus::BuildGauge()
                       .Name("pleg_running_pods")
                       .Help("Pods with a running (ready) sandbox.")
                       .Register(registry)
                       .Add({})),
      relist_period(prometheus::BuildGauge()
                        .Name("pleg_relist_period_seconds")
                        .Help("The agent's current relist period: the flag, or longer while it "
                              "spares a struggling runtime.")
                        .Register(registry)
                        .Add({})),
      relist_threshold(prometheus::BuildGauge()
                           .Name("pleg_relist_threshold_seconds")
                           .Help("The PLEG health threshold in force: the kubelet's 180 s for the "
                                 "generic relist, 600 s while evented PLEG drives it. Alerts "
                                 "compare the last-seen age against it.")
                           .Register(registry)
                           .Add({})),
      registry_(registry),
      detail_(detail),
      events_family_(prometheus::BuildCounter()
                         .Name("pleg_events_total")
                         .Help("Pod lifecycle events generated, by event type.")
                         .Register(registry)),
      relist_errors_family_(prometheus::BuildCounter()
                                .Name("pleg_relist_errors_total")
                                .Help("Relists that failed to list pods, by gRPC code.")
                                .Register(registry)),
      running_containers_family_(prometheus::BuildGauge()
                                     .Name("pleg_running_containers")
                                     .Help("Containers the runtime lists, by state.")
                                     .Register(registry)) {
  // Event types and container states are few and fixed, and a healthy
  // node has them: at 0 from the start, so rate() sees the first event.
  for (size_t i = 0; i < std::size(kAllEventTypes); ++i)
    events_by_type_[i] = &events_family_.Add({{"event_type", event_type_name(kAllEventTypes[i])}});
  for (const char* state : {"created", "running", "exited", "unknown"}) running_containers(state);
}

prometheus::Histogram& PlegMetrics::lazy_histogram(Histograms& slots,
                                                   prometheus::Family<prometheus::Histogram>*& family,
                                                   const char* name, const char* help,
                                                   PodLifecycleEventType type) {
  auto& slot = slots[event_type_index(type)];
  if (auto* h = slot.load(std::memory_order_acquire)) return *h;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto* h = slot.load(std::memory_order_relaxed)) return *h;
  if (!family) family = &prometheus::BuildHistogram().Name(name).Help(help).Register(registry_);
  auto* h = &family->Add({{"event_type", event_type_name(type)}}, lag_buckets(detail_));
  slot.store(h, std::memory_order_release);
  return *h;
}

prometheus::Counter& PlegMetrics::events(PodLifecycleEventType type) {
  return *events_by_type_[event_type_index(type)];
}

prometheus::Histogram& PlegMetrics::event_lag(PodLifecycleEventType type) {
  return lazy_histogram(event_lag_, event_lag_family_, "pleg_event_lag_seconds",
                        "Seconds from the runtime's timestamp of a change (started_at, finished_at, "
                        "created_at) to the relist or event that made it known, by event type.",
                        type);
}

prometheus::Counter& PlegMetrics::event_lag_invalid(PodLifecycleEventType type) {
  auto& slot = event_lag_invalid_[event_type_index(type)];
  if (auto* c = slot.load(std::memory_order_acquire)) return *c;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto* c = slot.load(std::memory_order_relaxed)) return *c;
  if (!event_lag_invalid_family_)
    event_lag_invalid_family_ =
        &prometheus::BuildCounter()
             .Name("pleg_event_lag_invalid_total")
             .Help("Events whose runtime timestamp is zero, in the future or before the "
                   "container was created (a stepped clock, a runtime bug).")
             .Register(registry_);
  auto* c = &event_lag_invalid_family_->Add({{"event_type", event_type_name(type)}});
  slot.store(c, std::memory_order_release);
  return *c;
}

prometheus::Histogram& PlegMetrics::evented_delivery_lag(PodLifecycleEventType type) {
  return lazy_histogram(evented_delivery_lag_, evented_delivery_family_,
                        "pleg_evented_delivery_lag_seconds",
                        "Evented mode: seconds from a runtime event's created_at to its "
                        "delivery to the agent, by event type.",
                        type);
}

prometheus::Counter& PlegMetrics::relist_errors(const std::string& code) {
  return relist_errors_family_.Add({{"code", code}});
}

prometheus::Gauge& PlegMetrics::running_containers(const std::string& state) {
  return running_containers_family_.Add({{"container_state", state}});
}

prometheus::Histogram& PlegMetrics::pod_relist_duration() {
  if (auto* h = pod_relist_duration_.load(std::memory_order_acquire)) return *h;
  std::lock_guard<std::mutex> lock(mu_);
  if (auto* h = pod_relist_duration_.load(std::memory_order_relaxed)) return *h;
  // A pod relist is two filtered lists: lean keeps a few buckets (fast,
  // slow, past the hang threshold, past the 3 min one: a hung pod relist
  // holds the global relist back); full has the relist's.
  static const prometheus::Histogram::BucketBoundaries kLeanPodRelistBuckets = {0.1, 1, 10, 180};
  auto* h = &histogram(registry_, "pleg_pod_relist_duration_seconds",
                       "Duration in seconds of on-demand relists of a single pod (the kubelet's, 1.36+), "
                       "made on the relist's worker and lock.",
                       detail_ == MetricDetail::kFull ? kRelistBuckets : kLeanPodRelistBuckets);
  pod_relist_duration_.store(h, std::memory_order_release);
  return *h;
}

}  // namespace plegscope
