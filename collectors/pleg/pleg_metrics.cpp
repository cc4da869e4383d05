#include "pleg/pleg_metrics.h"

#include "common/grpc_codes.h"
#include "pleg/event_lag.h"

namespace plegscope {
namespace {

// The kubelet's relist buckets stop at 10 s; ours reach past the 3 min threshold.
const prometheus::Histogram::BucketBoundaries kRelistBuckets = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 5, 10, 30, 60, 120, 180, 300, 600};

prometheus::Histogram& histogram(prometheus::Registry& registry, const char* name,
                                 const char* help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(registry).Add({},
                                                                                    kRelistBuckets);
}

}  // namespace

PlegMetrics::PlegMetrics(prometheus::Registry& registry)
    : relist_duration(histogram(registry, "pleg_relist_duration_seconds",
                                "Duration in seconds of PLEG relists.")),
      relist_interval(histogram(registry, "pleg_relist_interval_seconds",
                                "Interval in seconds between the starts of PLEG relists.")),
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
  // Every label value known in advance exists from the start at 0, so
  // rate() and increase() see the first event or error.
  for (size_t i = 0; i < std::size(kAllEventTypes); ++i)
    events_by_type_[i] = &events_family_.Add({{"event_type", event_type_name(kAllEventTypes[i])}});
  const prometheus::Histogram::BucketBoundaries lag_buckets(kLagBuckets.begin(), kLagBuckets.end());
  auto& lag = prometheus::BuildHistogram()
                  .Name("pleg_event_lag_seconds")
                  .Help("Seconds from the runtime's timestamp of a change (started_at, finished_at, "
                        "created_at) to the relist or event that made it known, by event type.")
                  .Register(registry);
  auto& invalid = prometheus::BuildCounter()
                      .Name("pleg_event_lag_invalid_total")
                      .Help("Events whose runtime timestamp is zero, in the future or before the "
                            "container was created (a stepped clock, a runtime bug).")
                      .Register(registry);
  auto& delivery = prometheus::BuildHistogram()
                       .Name("pleg_evented_delivery_lag_seconds")
                       .Help("Evented mode: seconds from a runtime event's created_at to its "
                             "delivery to the agent, by event type.")
                       .Register(registry);
  for (size_t i = 0; i < std::size(kAllEventTypes); ++i) {
    const prometheus::Labels labels{{"event_type", event_type_name(kAllEventTypes[i])}};
    event_lag_[i] = &lag.Add(labels, lag_buckets);
    event_lag_invalid_[i] = &invalid.Add(labels);
    evented_delivery_lag_[i] = &delivery.Add(labels, lag_buckets);
  }
  for (const auto& code : grpc_error_code_names()) relist_errors(code);
  for (const char* state : {"created", "running", "exited", "unknown"}) running_containers(state);
}

prometheus::Counter& PlegMetrics::events(PodLifecycleEventType type) {
  return *events_by_type_[event_type_index(type)];
}

prometheus::Histogram& PlegMetrics::event_lag(PodLifecycleEventType type) {
  return *event_lag_[event_type_index(type)];
}

prometheus::Counter& PlegMetrics::event_lag_invalid(PodLifecycleEventType type) {
  return *event_lag_invalid_[event_type_index(type)];
}

prometheus::Histogram& PlegMetrics::evented_delivery_lag(PodLifecycleEventType type) {
  return *evented_delivery_lag_[event_type_index(type)];
}

prometheus::Counter& PlegMetrics::relist_errors(const std::string& code) {
  return relist_errors_family_.Add({{"code", code}});
}

prometheus::Gauge& PlegMetrics::running_containers(const std::string& state) {
  return running_containers_family_.Add({{"container_state", state}});
}

}  // namespace plegscope
