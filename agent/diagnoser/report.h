#pragma once
// The /diagnose report as a value (docs/report.md). Status, severity, cause ids and
// gRPC codes are enums here; their strings live only at the JSON/text edge.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/grpc_code.h"
#include "cri/runtime_status_evidence.h"
#include "diagnoser/culprit.h"
#include "diagnoser/finding.h"
#include "diagnoser/node_condition_state.h"
#include "scrape/scrape_outcome.h"

namespace plegscope {

enum class Status { kHealthy, kAtRisk, kUnhealthy };

const char* status_name(Status status);
const char* severity_name(Severity severity);
const char* advice_name(Advice advice);  // "none", "fix-pod", "restart-kubelet", ...
// Inverses for reports read back (plegscope diagnose --url); nullopt if unknown.
std::optional<Status> status_from_name(const std::string& name);
std::optional<Severity> severity_from_name(const std::string& name);
std::optional<Advice> advice_from_name(const std::string& name);

// A finding with its words. The diagnoser leaves the words empty;
// agent/report fills them in (report/wording.h) from the typed finding.
// A report read back from JSON has the words and only the finding's id,
// severity, confidence and evidence.
struct Cause : Finding {
  Cause() = default;
  explicit Cause(Finding finding) : Finding(std::move(finding)) {}
  std::string summary;  // one sentence: what is wrong, with the numbers
  std::string remedy;   // what to run to confirm, what usually fixes it
  // Read back from JSON only: a report read back has no finding to derive
  // its culprit from (culprit_of), so it keeps the one it was sent.
  Culprit culprit_read_back;
  // Not in the JSON: the parts of the report's one-sentence summary.
  std::string reason;  // the clause after "because"
  std::string action;  // what to do first
};

struct OperationReport {
  // Counts are signed so that any JSON number that passed
  // report_from_json's range check converts without undefined behaviour.
  int64_t count = 0;
  int64_t errors = 0;
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
  std::optional<GrpcCode> error;
  bool initial = false;      // the first relist: every pod inspected once
  bool in_progress = false;  // the relist running now, as far as it got
  int lists_done = 0;        // 0, 1 (sandboxes) or 2 (containers too)
  int pods_changed = 0;      // pods with events, once the lists are compared
  int pods_inspected = 0;    // of them, inspected so far
};

struct TopPod {
  std::string uid;
  std::string namespace_;
  std::string name;
  int events = 0;
};

// One mark from the journal (docs/report.md "journal"): what the kubelet or the
// runtime said, on the timeline beside the relists.
struct JournalEntry {
  TimePoint time{};
  std::string unit;
  std::string kind;     // "pleg_not_healthy", "unit_started", ... (journal_marks.h)
  std::string message;  // cut by the follower
};

// Event lag: one pod's worst event over the window (docs/report.md "event_lag").
struct LagPod {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::string container;   // the container's name; the sandbox's id for a sandbox event
  std::string event_type;  // ContainerDied, ContainerStarted, ...
  double lag_seconds = 0;
};

// One per-pod call of the window, with its pod.
struct PodCallReport {
  std::string pod;  // "namespace/name", "" when the pod is not known
  std::string uid;
  std::string sandbox_id;
  std::string container;
  std::string op;
  double seconds = 0;
  bool in_flight = false;
};

// The cgroup v2 witness in the host section. At namespace scope, not nested
// in HostReport: a std::optional of a nested struct with member initializers
// is judged not default-constructible while HostReport is still incomplete
// (clang), and could then not be read back from JSON.
struct CgroupV2Report {
  std::string mode;    // "unified" or "hybrid"
  std::string root;
  std::string driver;  // "systemd", "cgroupfs", "" (no kubepods)
  int64_t pods_read = 0;
  struct Stall {
    std::string resource;  // "cpu", "io", "memory"
    std::optional<double> some_seconds, full_seconds;
    double interval_seconds = 0;
  };
  // The runtime's, the kubelet's and kubepods' cgroups, then those stopped
  // (frozen or freezing) or watched (a pod with a pending call).
  struct Unit {
    std::string role, path, owner, pod_uid, pod, container_id;
    std::optional<bool> populated, frozen, freeze;
    std::optional<int64_t> pids_current, pids_max;
    std::optional<uint64_t> pids_events_max, pids_events_local_max, memory_high, memory_oom_kill,
        nr_dying_descendants;
    std::vector<Stall> pressure;
    std::vector<std::string> unavailable;  // files this kernel lacks: no figure, not zero
    std::optional<std::string> error;
  };
  std::vector<Unit> units;
  // A container whose cgroup disagrees with the runtime's list:
  // "running_without_process" or "exited_with_processes".
  struct Divergence {
    std::string kind, container_id, pod_uid, pod, runtime_state, path;
  };
  std::vector<Divergence> divergences;
  // false while the PLEG's records were busy (a relist running): not compared.
  bool divergence_checked = false;
  int64_t containers = 0;  // container cgroups read
};

// The host evidence below the CRI (docs/report.md "host").
struct HostReport {
  bool reachable = false;  // false: the scan is off or has not run
  std::optional<std::string> error;
  // One runtime process with the process or some of its threads in D; the
  // state, wchan and seconds are its worst task's (the longest in D).
  struct Blocked {
    int64_t pid = 0;
    std::string comm;
    std::string state = "D";
    std::string wchan;
    double seconds = 0;
    std::string sandbox_id;
    std::string pod;
    // Why wchan is not a kernel function: host::wchan_hidden_name ("" when it is).
    std::string wchan_hidden;
    int64_t tid = 0;         // the worst task; == pid for the main thread
    int64_t tasks_in_d = 1;  // of its threads, those in D
    int64_t threads = 0;     // all its threads (0: unknown)
    // The kernel's newest hung-task report on one of its tasks (the
    // journal's kernel transport), with whether it predates this stall.
    std::optional<KernelHungTask> hung_task;
    // --kernel-stacks: the kernel stack of its most telling task in D (one
    // whose frames name a class, else the worst task's); absent when none
    // was read.
    struct KernelStack {
      int64_t tid = 0;
      std::vector<std::string> frames;  // innermost first
      std::string top;                  // the first frame that is not the scheduler's
      std::string frame_class;          // "freezer", "storage", ... ("" when none matches)
    };
    std::optional<KernelStack> kernel_stack{};
    // Stopped by a frozen cgroup v2 cgroup (state S), not in D: that cgroup,
    // and whether its freeze never completed (cgroup.freeze 1, frozen 0).
    std::string frozen_cgroup{};
    bool freeze_incomplete = false;
  };
  struct ZombieParent {
    int64_t pid = 0;
    std::string comm;
    int64_t count = 0;
    std::string pod;         // "namespace/name" when the PLEG knows it
    std::string pod_uid;
    std::string sandbox_id;
    std::string found_by;    // "helper", "ancestry", "cgroup", or "" (not tied to a pod)
  };
  // A runtime shim (containerd-shim*) or conmon and the pod it serves. An
  // empty pod: no pod the runtime lists now has its sandbox (a leaked shim),
  // or its command line was not read yet (sandbox_id empty too).
  struct Shim {
    int64_t pid = 0;
    std::string comm;
    std::string state;               // "S", "D", ... as in <proc>/<pid>/stat
    std::optional<double> seconds;   // its age; null without <proc>/uptime
    std::string sandbox_id;
    std::string container_id;        // conmon's -c; "" for a shim
    std::string pod;                 // "namespace/name" or ""
  };
  // --kernel-stacks: whether it is on, and why stacks are missing.
  struct KernelStacks {
    bool enabled = false;
    bool available = false;              // the BPF iterator is loaded
    std::optional<std::string> error;    // unavailable (no BTF, capabilities, load) or stacks missing
    int64_t tasks_asked = 0;
    int64_t tasks_read = 0;
    double read_seconds = 0;             // the last read's wall time
  };
  struct Processes {
    int64_t helpers = 0;
    std::vector<Blocked> blocked;
    KernelStacks kernel_stacks;
    int64_t zombies = 0;
    std::vector<ZombieParent> zombie_parents;
    // Unmapped first, then by pod and pid; bounded, shims_total is the true count.
    std::vector<Shim> shims;
    int64_t shims_total = 0;
    std::optional<std::string> error;
  } processes;
  struct PidLimit {
    std::string scope;
    int64_t current = 0;
    std::optional<int64_t> max;
  };
  std::vector<PidLimit> pid_limits;
  struct Disk {
    std::string device;
    std::string mount;
    std::optional<double> latency_ms;
    std::optional<double> utilization;
    std::optional<std::string> error;
  } runtime_disk;
  // The kernel's hung-task reports the journal holds, oldest first (bounded
  // by the follower), whichever process they name; read even when the scan is off.
  std::vector<KernelHungTask> hung_tasks;
  // The kernel stopped reporting hung tasks then (kernel.hung_task_warnings
  // ran out): a hang since then goes unreported.
  std::optional<TimePoint> hung_tasks_suppressed_since;
  // cgroup v2's own view of the node (host/cgroup_v2_evidence.h); absent on
  // a v1 host with no v2 hierarchy mounted.
  using CgroupV2 = CgroupV2Report;
  std::optional<CgroupV2> cgroup_v2;
};

// The /diagnose JSON's contract version (docs/report.schema.json): raised
// when a field is removed or changes meaning, not when one is added.
inline constexpr int kReportSchemaVersion = 1;

struct Report {
  int schema_version = kReportSchemaVersion;
  std::string node;
  TimePoint generated_at{};
  bool healthy = false;
  std::string health_message;
  Status status = Status::kHealthy;
  std::string summary;  // filled in by agent/report, like the causes' words
  std::vector<Cause> causes;  // highest confidence first
  // The agent cannot see the runtime for a reason of its own (the
  // snapshot's agent_blind): the node is not judged, and the report says how
  // to fix the agent. nullopt while the agent can see the runtime.
  struct Blind {
    std::string reason;    // pleg_runtime_unreachable's reason label
    std::string endpoint;  // the endpoint the agent dials
    std::string fix;       // the agent-side fix, worded by agent/report
  };
  std::optional<Blind> blind;

  struct Relist {
    double period_seconds = 1;
    double threshold_seconds = 180;
    std::optional<double> seconds_since_last_seen;
    std::optional<double> in_progress_seconds;
    double duration_p50_seconds = 0;
    double duration_p99_seconds = 0;
    // What the kubelet sees of a relist this long: events this late.
    std::optional<double> events_late_by_seconds;
    // Do no harm: the agent relists this rarely while the runtime struggles.
    std::optional<double> stretched_period_seconds;
    std::optional<std::string> stretch_reason;
    std::string mode = "generic";  // "evented" while GetContainerEvents drives PLEG
    std::optional<std::string> evented_fallback_reason;  // why evented mode ended
  } relist;

  struct Runtime {
    std::string endpoint;
    std::string name;
    std::string version;
    std::map<std::string, OperationReport> operations;
    std::vector<PodCallReport> slowest_pods;  // in flight first, then slowest
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
    std::map<std::string, int64_t> by_type;
    int64_t discarded_total = 0;
    std::vector<TopPod> top_pods;
  } events;

  struct Pressure {
    std::optional<double> cpu_some_avg10, io_some_avg10, memory_some_avg10, load1;
    std::optional<int64_t> pids, pid_max;
  } node_pressure;

  // Beside the agent, docs/report.md "kubelet" and "runtime_metrics".
  // The error is typed here; agent/report words it with its fix (`error`
  // is those words, and all a report read back from JSON has).
  struct Kubelet {
    std::string endpoint;  // "" when off
    bool reachable = false;
    ScrapeOutcome outcome;
    std::optional<std::string> error;  // words, filled in by agent/report
    std::string tls_mode;
    std::optional<std::string> version;
    std::string model;  // pleg_model_name() of the model the agent follows
    // The kubelet release whose PLEG the agent copies ("1.37"), and whether
    // that release was read from the kubelet, given by --kubelet-version, or
    // assumed (the newest released kubelet, when neither is known).
    std::string model_release;
    std::string model_source;
    bool version_overridden = false;  // --kubelet-version in force
    std::optional<double> last_seen_age_seconds, relist_p99_seconds, relists_per_minute;
    std::optional<double> seconds_since_relist_advanced;
    std::optional<std::string> ready_message;
    std::optional<ScrapeOutcome> ready_outcome;  // nullopt: not in-cluster, not read
    std::optional<std::string> ready_error;      // words, filled in by agent/report
  } kubelet;

  struct InFlightMethod {
    std::string method;
    double count = 0;
    double seconds = 0;
  };
  struct RuntimeMetrics {
    std::string endpoint;  // "" when off
    bool reachable = false;
    ScrapeOutcome outcome;
    std::optional<std::string> error;  // words, filled in by agent/report
    std::vector<InFlightMethod> in_flight;
  } runtime_metrics;

  // The runtime's CRI Status as the kubelet reads it, and which of the
  // kubelet's two paths to NotReady the node is on, or nearest to.
  struct RuntimeStatus {
    bool enabled = false;
    std::optional<double> seconds_since_success;
    std::optional<double> in_flight_seconds;
    bool runtime_down = false;
    std::optional<RuntimeConditionValue> runtime_ready, network_ready;
    std::optional<std::string> last_error;  // "DEADLINE_EXCEEDED: ..." of the trailing failures
    int failures_in_a_row = 0;
    // The kubelet's errors as it would list them now, in its order (the
    // Status sync, PLEG, RuntimeReady, then the network).
    std::vector<std::string> kubelet_errors;
    // "runtime_status" (30 s without a Status sync), "pleg" (the relist
    // threshold), "both", or "none"; and in how many seconds the nearer
    // one is reached (0: on it; nullopt: neither is near).
    std::string not_ready_path = "none";
    std::optional<double> not_ready_in_seconds;
    // The kubelet's Ready message, where read, matched against the two:
    // "runtime_status", "pleg", "both", "other"; nullopt when not read.
    std::optional<std::string> ready_message_path;
  } runtime_status;

  std::vector<TimelineEntry> timeline;  // oldest first; the relist in progress last
  std::optional<double> seconds_to_unhealthy;  // forecast

  // Event lag over the window: from the runtime's timestamp of a change to
  // the relist that saw it (collectors/pleg/event_lag.h).
  struct EventLag {
    double p50_seconds = 0;
    double p99_seconds = 0;
    int64_t events = 0;   // measured in the window; 0: p50/p99 mean nothing
    int64_t invalid = 0;  // timestamps missing, in the future or before creation
    std::vector<LagPod> worst_pods;  // largest lag first
    // Evented mode: a stream event's created_at to its delivery and to the
    // cache update, over the last kEventedLagWindow (10 min); count 0 in generic mode.
    struct Figures {
      int64_t count = 0;
      double p50_seconds = 0;
      double p99_seconds = 0;
      int64_t invalid = 0;
    };
    struct Evented {
      Figures delivery;
      Figures cache_update;
    } evented;
  } event_lag;

  // Journal: the newest marks, oldest first, and whether there is a journal.
  std::vector<JournalEntry> journal;
  struct JournalSource {
    bool reachable = false;
    std::string path;
    std::optional<std::string> error;  // "no journal at ...", a read error
    std::string kubelet_unit;
    std::vector<std::string> runtime_units;
  } journal_source;
  HostReport host;
  NodeConditionState node_condition;
};

}  // namespace plegscope
