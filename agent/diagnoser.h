#pragma once
// The diagnoser: a pure function from a Snapshot to a Report (DESIGN §6).
// One rule per cause id; each names the evidence it measured, the threshold
// it compared against, what to run to confirm and what usually fixes it.
// No I/O, no clock: everything time-dependent comes from Snapshot::now.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "snapshot.h"

namespace plegscope {

// Cause ids, fixed by DESIGN §6 (dashboards and alerts use them).
namespace cause {
inline constexpr const char* kRuntimeUnavailable = "runtime_unavailable";
inline constexpr const char* kRuntimeHung = "runtime_hung";
inline constexpr const char* kRuntimeSlow = "runtime_slow";
inline constexpr const char* kMessageTooLarge = "message_too_large";
inline constexpr const char* kTooManyContainers = "too_many_containers";
inline constexpr const char* kEventStorm = "event_storm";
inline constexpr const char* kPodStatusSlow = "pod_status_slow";
inline constexpr const char* kReinspectBacklog = "reinspect_backlog";
inline constexpr const char* kNodePressure = "node_pressure";
inline constexpr const char* kAll[] = {kRuntimeUnavailable, kRuntimeHung,      kRuntimeSlow,
                                       kMessageTooLarge,    kTooManyContainers, kEventStorm,
                                       kPodStatusSlow,      kReinspectBacklog,  kNodePressure};
}  // namespace cause

// Every knob a rule compares against. Defaults are what the rules ship with;
// the unit tests put each rule just below and just above them.
struct DiagnoserThresholds {
  double hang_seconds = 10;          // --hang-threshold
  double window_seconds = 30;        // rules look at relists started this recently
  // runtime_unavailable: trailing relists failing with UNAVAILABLE.
  int unavailable_relists = 1;
  // runtime_slow: median time in list calls per relist, and cost per object.
  double slow_list_seconds = 0.5;
  double slow_list_seconds_per_item = 0.001;
  // message_too_large: the gRPC receive limit and the share of it that warns.
  double message_limit_bytes = 16.0 * 1024 * 1024;
  double message_warn_fraction = 0.75;
  // too_many_containers: sandboxes + containers in the last answer.
  int many_objects = 1000;
  double exited_share = 0.5;
  // event_storm: pods with events per relist (mean over the window).
  double storm_pods_per_relist = 10;
  // pod_status_slow: p99 of PodSandboxStatus / ContainerStatus.
  double slow_status_seconds = 0.5;
  // reinspect_backlog: relists in a row with pods waiting for reinspection.
  int reinspect_relists = 3;
  // node_pressure: PSI some avg10 (percent), load per CPU, PID usage.
  double cpu_psi = 40;
  double io_psi = 25;
  double memory_psi = 10;
  double load_per_cpu = 2;
  double pid_usage = 0.9;
  // causes below this confidence are not reported at all
  double min_confidence = 0.3;
};

struct Evidence {
  std::string signal;  // e.g. "oldest_in_flight_seconds{list_containers}"
  double value = 0;
  std::optional<double> threshold;
};

struct Cause {
  std::string id;
  std::string severity;  // critical, warning, info
  double confidence = 0;
  std::string summary;   // one sentence: what is wrong, with the numbers
  std::vector<Evidence> evidence;
  std::string remedy;    // what to run to confirm, what usually fixes it
  // Not in the JSON: the parts of the report's one-sentence summary.
  std::string reason;  // the clause after "because"
  std::string action;  // what to do first
};

struct OperationReport {
  uint64_t count = 0;
  uint64_t errors = 0;
  double p50_seconds = 0;
  double p99_seconds = 0;
  double max_seconds = 0;
  int in_flight = 0;
  double oldest_in_flight_seconds = 0;
};

struct TimelineEntry {
  TimePoint start{};
  double duration_seconds = 0;
  double list_seconds = 0;
  double status_seconds = 0;
  int status_calls = 0;
  int pods = 0;
  int containers = 0;
  int events = 0;
  std::optional<std::string> error;
};

struct TopPod {
  std::string uid;
  std::string namespace_;
  std::string name;
  int events = 0;
};

struct Report {
  std::string node;
  TimePoint generated_at{};
  bool healthy = false;
  std::string health_message;
  std::string status;  // healthy, at_risk, unhealthy
  std::string summary;
  std::vector<Cause> causes;  // highest confidence first

  struct Relist {
    double period_seconds = 1;
    double threshold_seconds = 180;
    std::optional<double> seconds_since_last_seen;
    std::optional<double> in_progress_seconds;
    double duration_p50_seconds = 0;
    double duration_p99_seconds = 0;
    std::string mode = "generic";  // "evented" while GetContainerEvents drives PLEG
    std::optional<std::string> evented_fallback_reason;  // why evented mode ended
  } relist;

  struct Runtime {
    std::string endpoint;
    std::string name;
    std::string version;
    std::map<std::string, OperationReport> operations;
  } runtime;

  struct Pods {
    int sandboxes = 0;
    int containers = 0;
    int running_containers = 0;
    int exited_containers = 0;
    int pods_to_reinspect = 0;
  } pods;

  struct Events {
    double per_relist_p99 = 0;
    std::map<std::string, uint64_t> by_type;
    uint64_t discarded_total = 0;
    std::vector<TopPod> top_pods;
  } events;

  struct Pressure {
    std::optional<double> cpu_some_avg10, io_some_avg10, memory_some_avg10, load1;
    std::optional<int64_t> pids, pid_max;
  } node_pressure;

  std::vector<TimelineEntry> timeline;  // oldest first
  std::optional<double> seconds_to_unhealthy;  // forecast
};

// The whole diagnosis. Pure: same snapshot, same report.
Report diagnose(const Snapshot& snapshot, const DiagnoserThresholds& thresholds);

// Confidence of every cause id (0 when absent), for pleg_diagnosis_cause.
std::map<std::string, double> cause_confidences(const Report& report);

}  // namespace plegscope
