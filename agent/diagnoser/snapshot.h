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
#include "diagnoser/finding.h"
#include "host/host_scanner.h"
#include "node/node_pressure.h"
#include "pleg/relist_record.h"

namespace plegscope {

struct Snapshot {
  std::string node;
  TimePoint now{};

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
  std::string runtime_name;
  std::string runtime_version;
  std::map<std::string, OperationStats> operations;  // by op name (runtime_client.h op::)

  // PLEG state.
  std::vector<RelistRecord> timeline;  // completed relists, oldest first
  std::optional<RelistRecord> in_progress;  // the relist running now, as far as it got
  size_t pods_to_reinspect = 0;
  uint64_t events_discarded_total = 0;

  // Node.
  std::optional<NodePressure> pressure;

  // Per-pod calls (issue 17): the pod behind each per-pod call in flight and
  // behind the slowest recent ones, resolved from the pods the PLEG inspected.
  struct PodCall {
    std::string op;
    double seconds = 0;       // its latency, or its age while in flight
    bool in_flight = false;
    TimePoint end{};          // when it ended (completed calls)
    PodRef pod;               // uid/sandbox_id alone when the pod is not known
  };
  std::vector<PodCall> pod_calls;  // in flight first (oldest first), then slowest first

  // Host evidence below the CRI (issue 17): the latest periodic scan;
  // nullopt while none ran (the reader is off).
  std::optional<host::HostEvidence> host;
  // Zombie counts of the recent scans, oldest first (defunct_processes' growth).
  std::vector<int64_t> zombie_history;
  // The pods of the sandboxes the host evidence names (helpers in D, zombie
  // parents), where the PLEG knows them.
  std::map<std::string, PodRef> pods_by_sandbox;
};

}  // namespace plegscope
