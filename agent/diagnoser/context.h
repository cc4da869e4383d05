#pragma once
// The evidence every rule reads, built once per diagnosis from a Snapshot.
//
// Relists are counted, not timed: the window holds the last few completed
// relists however long ago they ran, plus the relist in progress as partial
// evidence. Call
// latency comes from the tracker's recent samples and the calls still in
// flight, so a slow runtime is named from its calls before any relist ends.
#include <optional>
#include <string>
#include <vector>

#include "diagnoser/finding_values.h"
#include "diagnoser/runtime_model.h"
#include "diagnoser/snapshot.h"
#include "diagnoser/thresholds.h"

namespace plegscope {

// Recent latency of one group of operations (the list calls, or the status
// calls), judged per operation and reported for the worst one.
struct CallLatency {
  std::string op;          // the worst operation, empty when no call was seen
  double typical = 0;      // median of its newest calls, in-flight ages included
  double p99 = 0;          // over the window
  double p50 = 0;
  int samples = 0;         // calls behind the figures (completed + in flight)
  int slow = 0;            // of them, at or above the group's threshold
  bool in_flight_slow = false;  // a call still in flight is already past the threshold
};

struct Context {
  Context(const Snapshot& snapshot, const DiagnoserThresholds& thresholds) : s(snapshot), t(thresholds) {}
  const Snapshot& s;
  const DiagnoserThresholds& t;
  // Which runtime, from its Version: selects the chains rules may draw.
  RuntimeModel runtime;

  TimePoint window_start{};                 // older samples are not evidence
  std::vector<const RelistRecord*> window;  // the last completed relists, oldest first
  std::vector<const RelistRecord*> window_ok;   // ... that succeeded
  std::vector<const RelistRecord*> steady;      // ... and were not the initial relist
  std::vector<const RelistRecord*> trend;       // steady relists of the time window (forecast)
  const RelistRecord* in_progress = nullptr;    // the relist running now
  const RelistRecord* last_ok = nullptr;        // newest successful relist, any age

  // Per relist, over the successful window and the relist in progress.
  double list_seconds = 0;     // typical time in the two unfiltered list calls
  double relist_seconds = 0;   // typical duration of a steady relist, or the one running if longer
  double completed_relist_seconds = 0;  // typical duration of a steady relist, the one running left out
  double status_share = 0;     // share of relist time in per-pod inspection
  double list_share = 0;       // share of relist time in the list calls
  double pods_changed = 0;     // mean pods with events per steady relist (the in-progress one once diffed)
  int change_relists = 0;      // relists behind pods_changed
  int objects = 0;             // sandboxes + containers in the newest answer

  CallLatency lists;
  CallLatency statuses;

  std::string hung_op;         // op with the oldest call past the hang threshold
  double hung_seconds = 0;
  bool hung() const { return !hung_op.empty(); }
  // Relists taking several periods: the kubelet learns of changes this late.
  bool late() const;
  double period_seconds() const;
};

Context make_context(const Snapshot& s, const DiagnoserThresholds& t);

// Trailing completed relists (newest backwards) that failed with `code`.
int trailing_errors(const Context& c, GrpcCode code);
// Completed relists that failed with `code`: the last few, and those of the
// time window.
int window_errors(const Context& c, GrpcCode code);
// The completed relists window_errors counts over.
int window_relist_count(const Context& c);
// In the same relists: a relist that failed (with `code`, or with any code)
// followed by one that succeeded: the runtime fails on and off, it is not
// down or stuck.
bool failures_interleaved(const Context& c, std::optional<GrpcCode> code = std::nullopt);
// Recent calls of the list (or status) operations that failed with `code`.
int recent_call_errors(const Context& c, GrpcCode code, bool lists);

// Calls for no pod (the unfiltered lists, Version, Status) hanging past the
// hang threshold, or lists already failing at their deadline: the whole
// runtime waits, not one pod's calls.
struct RuntimeWideHang {
  bool hung = false;
  std::string op;           // the oldest such call's operation
  double seconds = 0;       // its age
  bool in_flight = false;   // false: only deadline errors
  int deadline_errors = 0;  // list calls that hit DEADLINE_EXCEEDED in the window
};
RuntimeWideHang runtime_wide_hang(const Context& c);

// The runtime's condition as it gave it (reason, message), or that it gave
// none (the kubelet's <nil>), for a finding about it.
ReportedCondition reported_condition(const std::optional<RuntimeConditionValue>& condition);

// The runtime's own metrics page is configured and did not answer.
bool runtime_metrics_failed(const Context& c);

bool is_list_op(const std::string& op);
bool is_status_op(const std::string& op);

}  // namespace plegscope
