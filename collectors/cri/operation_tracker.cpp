#include "cri/operation_tracker.h"

#include <algorithm>

#include "common/metric_family.h"
#include "common/quantile.h"
#include "cri/runtime_client.h"

namespace plegscope {
namespace {

// Past the kubelet's 10 s top bucket: a 3-minute call must land in a bucket.
const prometheus::Histogram::BucketBoundaries kFullBuckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
    1,      2.5,   5,      10,    30,   60,    120,  180, 300,  600};
// The lean set: a factor of four or five apart where healthy calls live,
// then the hang threshold (10 s), the at-risk line (60 s) and the top, so
// every shipped comparison falls on a bucket boundary.
const prometheus::Histogram::BucketBoundaries kLeanBuckets = {0.005, 0.025, 0.1, 0.5,
                                                              2.5,   10,    60,  600};

// The calls a relist makes, under the kubelet's names: the ones whose
// latency the dashboards and the relist-cost rules read (the per-pod
// inspection lists with them even where the runtime streams its full
// lists). Version, Status, the event stream and the streamed lists are
// counted and tracked in flight, but timed only with full detail.
bool relist_operation(const std::string& op) {
  for (const char* name : {op::kListPodSandbox, op::kListContainers, op::kPodSandboxStatus,
                           op::kContainerStatus})
    if (op == name) return true;
  return false;
}

}  // namespace

OperationTracker::OperationTracker(prometheus::Registry& registry, const Clock& clock,
                                   MetricDetail detail)
    : clock_(clock),
      detail_(detail),
      total_family_(prometheus::BuildCounter()
                        .Name("pleg_runtime_operations_total")
                        .Help("CRI calls made by plegscope, by operation type.")
                        .Register(registry)),
      errors_family_(prometheus::BuildCounter()
                         .Name("pleg_runtime_operations_errors_total")
                         .Help("CRI calls that failed, by operation type and gRPC code.")
                         .Register(registry)),
      duration_family_(prometheus::BuildHistogram()
                           .Name("pleg_runtime_operations_duration_seconds")
                           .Help("Duration of CRI calls in seconds, by operation type.")
                           .Register(registry)),
      bytes_family_(prometheus::BuildGauge()
                        .Name("pleg_runtime_list_response_bytes")
                        .Help("Size in bytes of the last unfiltered list answer (gRPC limit is "
                              "16 MiB).")
                        .Register(registry)),
      items_family_(prometheus::BuildGauge()
                        .Name("pleg_runtime_list_items")
                        .Help("Items in the last unfiltered list answer.")
                        .Register(registry)) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const char* name : {op::kListPodSandbox, op::kListContainers}) {
    PerOp& p = per_op(name);
    p.list_bytes = &bytes_family_.Add({{"operation_type", name}});
    p.list_items = &items_family_.Add({{"operation_type", name}});
  }
}

OperationTracker::PerOp& OperationTracker::per_op(const std::string& op) {
  auto it = ops_.find(op);
  if (it != ops_.end()) return it->second;
  PerOp& p = ops_[op];
  p.total = &total_family_.Add({{"operation_type", op}});
  return p;
}

void OperationTracker::observe_locked(const std::string& op, PerOp& p, int grpc_code,
                                      double seconds) {
  if (!p.duration) {
    if (detail_ == MetricDetail::kFull)
      p.duration = &duration_family_.Add({{"operation_type", op}}, kFullBuckets);
    // An UNIMPLEMENTED answer is a capability probe (list streaming), not a
    // call whose latency means anything: it opens no histogram.
    else if (relist_operation(op) && grpc_code != static_cast<int>(GrpcCode::kUnimplemented))
      p.duration = &duration_family_.Add({{"operation_type", op}}, kLeanBuckets);
  }
  if (p.duration) p.duration->Observe(seconds);
}

OperationTracker::CallId OperationTracker::begin(const std::string& op,
                                                 std::function<void()> cancel, CallTarget target) {
  const MonoTime now = clock_.monotonic();
  std::lock_guard<std::mutex> lock(mu_);
  per_op(op);
  CallId id = next_id_++;
  in_flight_.emplace(id, InFlight{op, now, std::move(cancel), std::move(target)});
  return id;
}

void OperationTracker::end(CallId id, int grpc_code) {
  const ClockReading now = read_clocks(clock_);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = in_flight_.find(id);
  if (it == in_flight_.end()) return;
  const std::string op = it->second.op;
  double seconds = std::max(0.0, to_seconds(now.mono - it->second.start));
  CallTarget target = std::move(it->second.target);
  in_flight_.erase(it);
  record_locked(op, grpc_code, seconds, now, std::move(target));
}

void OperationTracker::record(const std::string& op, int grpc_code, double seconds) {
  const ClockReading now = read_clocks(clock_);
  std::lock_guard<std::mutex> lock(mu_);
  record_locked(op, grpc_code, seconds, now);
}

void OperationTracker::record_locked(const std::string& op, int grpc_code, double seconds,
                                     const ClockReading& now, CallTarget target) {
  PerOp& p = per_op(op);
  p.total->Increment();
  observe_locked(op, p, grpc_code, seconds);
  p.stats.count++;
  GrpcCode code = plegscope::grpc_code(grpc_code);
  p.recent.push_back({now.mono, CallSample{now.wall, seconds, code, std::move(target)}});
  while (p.recent.size() > kRecentCalls || (!p.recent.empty() && now.mono - p.recent.front().first > kRecentWindow))
    p.recent.pop_front();
  if (code != GrpcCode::kOk) {
    // The first error of a code creates its series (rate() sees it from the
    // second scrape on, as with the kubelet's own error counters).
    errors_family_.Add({{"operation_type", op}, {"code", grpc_code_name(code)}}).Increment();
    p.stats.errors++;
    p.stats.errors_by_code[code]++;
    p.stats.last_error_code = code;
    p.stats.last_error_time = now.wall;
  }
}

void OperationTracker::record_list_size(const std::string& op, uint64_t bytes, uint64_t items) {
  std::lock_guard<std::mutex> lock(mu_);
  PerOp& p = per_op(op);
  p.stats.last_list_bytes = bytes;
  p.stats.last_list_items = items;
  if (p.list_bytes) p.list_bytes->Set(static_cast<double>(bytes));
  if (p.list_items) p.list_items->Set(static_cast<double>(items));
}

void OperationTracker::note_reachability(ConnectProblem problem) {
  std::lock_guard<std::mutex> lock(mu_);
  unreachable_ = problem;
}

void OperationTracker::note_answered() {
  std::lock_guard<std::mutex> lock(mu_);
  answered_ = true;
  unreachable_ = ConnectProblem::kNone;
}

void OperationTracker::note_unreachable(ConnectProblem connect_result) {
  std::lock_guard<std::mutex> lock(mu_);
  unreachable_ = after_history(connect_result, answered_);
}

ConnectProblem OperationTracker::reachability() const {
  std::lock_guard<std::mutex> lock(mu_);
  return unreachable_;
}

void OperationTracker::cancel_all() {
  // Under the lock: a cancel function refers to the caller's call context,
  // which lives until the caller's end() returns, and end() waits for this
  // lock. Cancelling never calls back into the tracker.
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, call] : in_flight_)
    if (call.cancel) call.cancel();
}

OperationStats OperationTracker::stats_locked(const std::string& op, const PerOp& p,
                                              const ClockReading& now) const {
  OperationStats s = p.stats;
  std::vector<double> recent;
  for (const auto& [end, c] : p.recent)
    if (now.mono - end <= kRecentWindow) {
      s.recent.push_back(c);
      s.recent.back().end = now.place(end);
      recent.push_back(c.seconds);
    }
  s.p50_seconds = quantile(recent, 0.50);
  s.p99_seconds = quantile(recent, 0.99);
  s.max_seconds = recent.empty() ? 0 : *std::max_element(recent.begin(), recent.end());
  // Call ids grow with time, so in_flight_'s order is oldest first.
  for (const auto& [id, call] : in_flight_) {
    if (call.op != op) continue;
    const double age = std::max(0.0, to_seconds(now.mono - call.start));
    s.in_flight++;
    s.oldest_in_flight_seconds = std::max(s.oldest_in_flight_seconds, age);
    s.in_flight_calls.push_back({age, call.target});
  }
  return s;
}

OperationStats OperationTracker::stats(const std::string& op) const {
  const ClockReading now = read_clocks(clock_);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(op);
  if (it == ops_.end()) return {};
  return stats_locked(op, it->second, now);
}

std::optional<uint64_t> OperationTracker::last_list_bytes(const std::string& op) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(op);
  if (it == ops_.end()) return std::nullopt;
  return it->second.stats.last_list_bytes;
}

std::map<std::string, OperationStats> OperationTracker::all_stats() const {
  const ClockReading now = read_clocks(clock_);
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, OperationStats> out;
  for (const auto& [op, p] : ops_) out[op] = stats_locked(op, p, now);
  return out;
}

std::vector<prometheus::MetricFamily> OperationTracker::Collect() const {
  auto in_flight = gauge_family("pleg_runtime_operations_in_flight",
                                "CRI calls currently in flight, by operation type.");
  auto oldest = gauge_family(
      "pleg_runtime_operation_oldest_in_flight_seconds",
      "Age in seconds of the oldest unfinished CRI call, by operation type; 0 if none.");
  auto unreachable = gauge_family(
      "pleg_runtime_unreachable",
      "1 while the agent cannot reach the runtime's socket, by the reason its own connect() "
      "gave (permission_denied, no_such_socket, not_a_socket, connection_refused, other) or "
      "its first answers (not_cri: no CRI answer from a socket that accepts; socket_removed: the socket of a "
      "runtime that answered before is gone); absent while it can.");
  const MonoTime now = clock_.monotonic();
  std::lock_guard<std::mutex> lock(mu_);
  if (unreachable_ != ConnectProblem::kNone)
    add_gauge(unreachable, {{"reason", connect_problem_name(unreachable_)}}, 1);
  for (const auto& [op, p] : ops_) {
    int count = 0;
    double age = 0;
    for (const auto& [id, call] : in_flight_) {
      if (call.op != op) continue;
      count++;
      age = std::max(age, to_seconds(now - call.start));
    }
    add_gauge(in_flight, {{"operation_type", op}}, count);
    add_gauge(oldest, {{"operation_type", op}}, age);
  }
  std::vector<prometheus::MetricFamily> out{in_flight, oldest};
  // No family at all while the runtime is reachable: no HELP without a sample.
  if (!unreachable.metric.empty()) out.push_back(std::move(unreachable));
  return out;
}

double OperationTracker::oldest_in_flight_seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  // Call ids grow with time: the first tracked one is the oldest.
  if (in_flight_.empty()) return 0;
  return to_seconds(clock_.monotonic() - in_flight_.begin()->second.start);
}

}  // namespace plegscope
