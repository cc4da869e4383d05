#pragma once
// What the diagnoser knows about one CRI operation type: a plain value, free
// of prometheus-cpp, so the diagnoser and its tests need no metrics library.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/clock.h"
#include "common/grpc_codes.h"

namespace plegscope {

struct CallSample {
  TimePoint end{};
  double seconds = 0;
  GrpcCode code = GrpcCode::kOk;
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
  // The last unfiltered list answer (the 16 MiB cliff).
  std::optional<uint64_t> last_list_bytes;
  std::optional<uint64_t> last_list_items;
};

}  // namespace plegscope
