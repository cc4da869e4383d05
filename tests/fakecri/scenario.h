#pragma once
// A scenario: the shape of the simulated node plus a list of phases, each
// saying how the runtime behaves while it lasts. Plain data; loaded from
// JSON by scenario_loader.h (schema: tests/scenarios/README.md).
#include <grpcpp/support/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "clock.h"
#include "operations.h"

namespace fakecri {

struct LatencySpec {
  Duration fixed{0};
  Duration jitter{0};    // uniform in [0, jitter)
  Duration per_item{0};  // times the number of items in the answer
  bool unfiltered_only = false;  // lists: only calls without a filter are slow
  bool active() const { return fixed.count() || jitter.count() || per_item.count(); }
};

// Which pods' calls a fault aims at, by ordinal: `"pods": K` is the first K
// pods, `"pods": [4, 7]` exactly those. A call aimed at no pod (an
// unfiltered list, Version) is never selected by a selector.
struct PodSelector {
  int first = -1;             // >= 0: ordinals < first
  std::vector<int> ordinals;  // else, when not empty: exactly these
  bool every_call() const { return first < 0 && ordinals.empty(); }
  bool selects(std::optional<int> ordinal) const {
    if (!ordinal) return false;
    if (first >= 0) return *ordinal < first;
    for (int o : ordinals)
      if (o == *ordinal) return true;
    return false;
  }
};

struct ErrorSpec {
  grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
  double rate = 1.0;  // probability per call
  PodSelector pods;   // every call when empty
  std::string message;
};

struct HangSpec {
  std::optional<Duration> duration;  // nullopt: until released (or phase end)
  PodSelector pods;                  // every call when empty; else only those aimed at these pods
};

struct OpBehaviour {
  LatencySpec latency;
  std::vector<ErrorSpec> errors;
  std::optional<HangSpec> hang;
};

struct ChurnSpec {
  int crashloop_pods = 0;  // pods with ordinal < crashloop_pods crash-loop
  double crashloop_restarts_per_second = 0;  // node-wide
  int keep_exited_attempts = 1;              // GC of crash-looping containers; < 0 keeps all
  double exited_per_second = 0;              // exited containers piling up
  // Exited job containers one pod keeps, oldest removed first (what a
  // kubelet whose container GC keeps up leaves); < 0 lets them pile up.
  int keep_exited_jobs_per_pod = -1;
  double pods_created_per_second = 0;
  double pods_deleted_per_second = 0;
};

struct EventStreamSpec {
  int break_after = 0;  // > 0: each GetContainerEvents stream ends after K events
  grpc::StatusCode break_code = grpc::StatusCode::UNAVAILABLE;
  // Each real event is followed by copies a client must ignore: without
  // pod_sandbox_status, with an unknown event type, with a sandbox status
  // lacking metadata, and stale (older, with the opposite type).
  bool garbage = false;
  // A runtime whose clock runs ahead (created_at later than now) or that
  // sends no timestamp (created_at 0): each event's created_at as sent.
  Duration created_at_ahead{0};
  bool created_at_zero = false;
};

// One of the runtime's conditions in its Status answer.
struct ConditionSpec {
  bool status = true;
  std::string reason;
  std::string message;
};

// What Status says while a phase lasts: ready by default, as a runtime
// with its CNI configuration loaded.
struct ConditionsSpec {
  ConditionSpec runtime_ready;
  ConditionSpec network_ready;
};

struct PhaseSpec {
  std::string name;
  std::optional<Duration> duration;  // nullopt: lasts forever
  PerOp<OpBehaviour> ops;
  ChurnSpec churn;
  bool socket_up = true;
  size_t pad_bytes = 0;  // annotation bytes added to each container
  EventStreamSpec events;
  ConditionsSpec conditions;
};

struct NodeShape {
  int pods = 10;
  int containers_per_pod = 1;
  int exited_per_pod = 0;
  std::vector<std::string> namespaces{"default"};  // pod i lives in namespaces[i % n]
  std::string pod_name_prefix = "pod";
  int unlabeled_pods = 0;  // the last K pods' containers lack io.kubernetes.pod.uid
  Duration initial_age = std::chrono::hours(1);
};

struct RuntimeInfo {
  std::string name = "fakecri";
  std::string version = "0.1.0";
  bool container_events = false;  // GetContainerEvents served, else UNIMPLEMENTED
  bool list_streaming = false;    // StreamPodSandboxes/StreamContainers, else UNIMPLEMENTED
  // RuntimeConfig served (as containerd 2.x and CRI-O), else UNIMPLEMENTED
  // (as containerd 1.6 and 1.7).
  bool runtime_config = true;
  // Items per streamed message: a list of any length, as upstream's api.proto
  // declares (CRI-O 1.36 sends up to 3,000, containerd 2.4 up to 5,000).
  int list_stream_batch = 3000;
};

struct Scenario {
  std::string name;
  std::string description;
  uint64_t seed = 1;
  RuntimeInfo runtime;
  NodeShape node;
  std::vector<PhaseSpec> phases;  // never empty once loaded
  bool loop = false;

  // Index of the phase called `name`, or nullopt.
  std::optional<size_t> phase_index(const std::string& phase_name) const {
    for (size_t i = 0; i < phases.size(); ++i) {
      if (phases[i].name == phase_name) return i;
    }
    return std::nullopt;
  }
};

}  // namespace fakecri
