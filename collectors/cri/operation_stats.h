#pragma once
// What the diagnoser knows about one CRI operation type: a plain value, free
// of prometheus-cpp, so the diagnoser and its tests need no metrics library.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/grpc_code.h"

namespace plegscope {

// What a per-pod call was for: PodSandboxStatus names a sandbox,
// ContainerStatus a container, a list filtered by the kubelet's pod-uid label
// a pod. Unfiltered lists and Version/Status name nothing.
struct CallTarget {
  enum class Kind { kNone, kSandbox, kContainer, kPodUid };
  Kind kind = Kind::kNone;
  std::string id;

  bool empty() const { return kind == Kind::kNone; }
  bool operator==(const CallTarget& o) const { return kind == o.kind && id == o.id; }
};

struct CallSample {
  TimePoint end{};
  double seconds = 0;
  GrpcCode code = GrpcCode::kOk;
  CallTarget target;
};

// A call not answered yet.
struct InFlightCall {
  double seconds = 0;
  CallTarget target;
};

struct OperationStats {
  // Since the agent started.
  uint64_t count = 0;
  uint64_t errors = 0;
  std::map<GrpcCode, uint64_t> errors_by_code;
  std::optional<GrpcCode> last_error_code;
  std::optional<TimePoint> last_error_time;
  // The recent window (OperationTracker::kRecentSeconds, at most kRecentCalls
  // calls), oldest first: what the diagnoser judges, not totals since start.
  std::vector<CallSample> recent;
  double p50_seconds = 0;
  double p99_seconds = 0;
  double max_seconds = 0;
  // Calls not answered yet.
  int in_flight = 0;
  double oldest_in_flight_seconds = 0;
  // Each of them, oldest first, with what it is for.
  std::vector<InFlightCall> in_flight_calls;
  // The last unfiltered list answer (the 16 MiB cliff).
  std::optional<uint64_t> last_list_bytes;
  std::optional<uint64_t> last_list_items;
};

}  // namespace plegscope
