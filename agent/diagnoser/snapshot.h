#pragma once
// Everything the diagnoser looks at, copied out of the running collectors at
// request time. A plain value: the diagnoser is a pure function of it, and
// unit tests build one by hand. No gRPC, civetweb or prometheus-cpp here.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "cri/operation_stats.h"
#include "cri/connect_problem_evidence.h"
#include "cri/runtime_config_evidence.h"
#include "cri/runtime_status_evidence.h"
#include "crio/crio_evidence.h"
#include "diagnoser/journal_evidence.h"
#include "diagnoser/finding.h"
#include "diagnoser/node_condition_state.h"
#include "host/host_evidence.h"
#include "host/node_pressure_evidence.h"
#include "kubelet/kubelet_evidence.h"
#include "pleg/relist_record.h"
#include "runtime_metrics/runtime_metrics_evidence.h"

namespace plegscope {

struct Snapshot {
  std::string node;
  // When the snapshot was taken. Every instant below is placed on the wall
  // axis through this one reading (ClockReading::place), from the monotonic
  // reading taken when it happened: the diagnoser subtracts them as it
  // pleases and gets monotonic intervals, whatever steps the wall clock took.
  TimePoint now{};
  NodeConditionState node_condition;  // --node-condition's writes
  MonoTime monotonic{};  // the same instant on the monotonic clock (freshness)

  // PLEG health, the kubelet's rule.
  bool healthy = false;
  std::string health_message;
  Duration relist_period = std::chrono::seconds(1);
  Duration relist_threshold = std::chrono::minutes(3);
  // Do no harm: the agent's own period while it stretches it for a
  // struggling runtime, and why (nullopt while it relists at the flag's period).
  std::optional<Duration> stretched_period;
  std::string stretch_reason;
  std::optional<TimePoint> last_seen;                  // start of the last good relist
  std::optional<TimePoint> relist_in_progress_since;   // start of the relist running now
  bool evented_mode = false;
  std::string evented_fallback_reason;  // empty unless evented mode ended

  // Runtime.
  std::string endpoint;
  std::optional<bool> socket_present;  // nullopt: not a unix socket path we can stat
  // Why the agent cannot reach the runtime (pleg_runtime_unreachable's
  // reason); kNone while it can.
  ConnectProblem unreachable = ConnectProblem::kNone;
  // That reason is the agent's own (agent_side()): the agent is blind, the
  // node is not at fault.
  bool agent_blind = false;
  std::string runtime_name;
  std::string runtime_version;
  RuntimeConfigEvidence runtime_config;  // the agent's own RuntimeConfig call
  std::map<std::string, OperationStats> operations;  // by op name (runtime_client.h op::)

  // PLEG state.
  std::vector<RelistRecord> timeline;  // completed relists, oldest first
  std::optional<RelistRecord> in_progress;  // the relist running now, as far as it got
  size_t pods_to_reinspect = 0;
  uint64_t events_discarded_total = 0;
  // Evented mode: the stream's lag over the last kEventedLagWindow
  // (EventedPleg::lag_over; empty in generic mode), apart from the relists'
  // lag in the timeline.
  EventedLag evented_lag;

  // Node.
  std::optional<NodePressure> pressure;

  // Journal: the kubelet's and the runtime's own lines (--journal-path);
  // available false and the reason in error when there is none.
  JournalEvidence journal;
  // Beside the agent: the kubelet's own PLEG and the runtime's metrics.
  KubeletEvidence kubelet;
  RuntimeMetricsEvidence runtime_metrics;
  CrioPagesEvidence crio_pages;  // CRI-O's pages on its socket; empty socket when off
  // The pods of crio_pages.unmonitored's containers, by container id.
  std::map<std::string, PodRef> unmonitored_pods;
  // The runtime's CRI Status as the kubelet reads it: its other path to NotReady.
  RuntimeStatusEvidence runtime_status;
  // The kubelet's runtime errors as it joins them into its Ready message:
  // the Status probe's beside PLEG's own (kubelet_runtime_errors()).
  std::vector<std::string> kubelet_runtime_errors;
  // Per-pod calls: the pod behind each per-pod call in flight and
  // behind the slowest recent ones, resolved from the pods the PLEG inspected.
  struct PodCall {
    std::string op;
    double seconds = 0;       // its latency, or its age while in flight
    bool in_flight = false;
    TimePoint end{};          // when it ended (completed calls)
    PodRef pod;               // uid/sandbox_id alone when the pod is not known
  };
  std::vector<PodCall> pod_calls;  // in flight first (oldest first), then slowest first

  // Host evidence below the CRI: the latest periodic scan;
  // nullopt while none ran (the reader is off).
  std::optional<host::HostEvidence> host;
  // When that scan ran: a blocked task's seconds_in_d count back from here.
  std::optional<TimePoint> host_scanned_at;
  // Zombie counts of the recent scans, oldest first (defunct_processes' growth).
  std::vector<int64_t> zombie_history;
  // The pods of the sandboxes the host evidence names (helpers in D, zombie
  // parents), where the PLEG knows them.
  std::map<std::string, PodRef> pods_by_sandbox;
  // The pod each shim or conmon (by pid) serves, among the pods the runtime
  // lists now; a helper missing here is unmapped.
  std::map<int64_t, PodRef> shim_pods;
  // The pod of each zombie parent (by pid) the host evidence ties to one,
  // where the PLEG knows it; uid or sandbox id alone where it does not.
  std::map<int64_t, PodRef> zombie_parent_pods;
  // The runtime's state of each container cgroup v2 lists
  // (host->cgroup_v2.containers, same order): "running", "exited",
  // "created", "unknown", "" when not listed; nullopt while a relist ran.
  std::optional<std::vector<std::string>> cgroup_container_states;
  // The pods (by uid) the cgroup v2 evidence names, where the PLEG knows them.
  std::map<std::string, PodRef> cgroup_pods;
};

}  // namespace plegscope
