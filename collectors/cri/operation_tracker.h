#pragma once
// Times every CRI call: counts, errors, latency histograms, and, computed at
// scrape time, how many calls are in flight and how old the oldest is. A call
// that never returns is visible here long before any deadline fires.
#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/metric_detail.h"
#include "cri/operation_stats.h"
#include "cri/runtime_socket.h"

namespace plegscope {

// Thread-safe. Never blocks on anything but its own short mutex.
class OperationTracker : public prometheus::Collectable {
 public:
  // Latency is judged over the last five minutes, at most this many calls
  // per operation: recent enough to follow a change, long enough for a few
  // slow relists.
  static constexpr size_t kRecentCalls = 512;
  static constexpr Duration kRecentWindow = std::chrono::minutes(5);

  // Series appear with the first call of an operation and the first error
  // of a code, as the kubelet's do, so a healthy node exports no zeros.
  // `detail` chooses which operations get a latency histogram and how fine
  // (common/metric_detail.h).
  OperationTracker(prometheus::Registry& registry, const Clock& clock,
                   MetricDetail detail = MetricDetail::kLean);

  using CallId = uint64_t;
  // `cancel` is kept while the call is in flight so cancel_all() can end it;
  // it must not call back into the tracker.
  // `target` is what a per-pod call is for, so a hung or slow call names its pod.
  CallId begin(const std::string& op, std::function<void()> cancel = {}, CallTarget target = {});
  void end(CallId id, int grpc_code);
  // A call that is not tracked in flight (a long-lived event stream would
  // otherwise look like a hung call): counted and timed once it ends.
  void record(const std::string& op, int grpc_code, double seconds);
  // Size and item count of an unfiltered list answer (the 16 MiB cliff).
  void record_list_size(const std::string& op, uint64_t bytes, uint64_t items);
  void cancel_all();
  // What the agent's own connect() to the socket said after the last failed
  // or successful answer: exported as pleg_runtime_unreachable{reason} while
  // it names a problem, so an alert tells "the agent is denied the socket"
  // from "the runtime is down".
  void note_reachability(ConnectProblem problem);
  // A call got a CRI answer: the runtime is reachable, and has answered.
  void note_answered();
  // A call failed before any CRI answer; `connect_result` is what the socket
  // check or the agent's own connect() said. Read against whether the
  // runtime ever answered (after_history) and noted.
  void note_unreachable(ConnectProblem connect_result);
  // What is exported as pleg_runtime_unreachable's reason (kNone: reachable).
  ConnectProblem reachability() const;

  OperationStats stats(const std::string& op) const;
  // Just the last list size: cheap enough for every relist (stats() sorts).
  std::optional<uint64_t> last_list_bytes(const std::string& op) const;
  std::map<std::string, OperationStats> all_stats() const;
  // Age of the oldest call in flight, event streams aside (0 when none):
  // cheap enough to poll every second.
  double oldest_in_flight_seconds() const;

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  struct InFlight {
    std::string op;
    MonoTime start;
    std::function<void()> cancel;
    CallTarget target;
  };
  struct PerOp {
    prometheus::Counter* total = nullptr;
    prometheus::Histogram* duration = nullptr;
    prometheus::Gauge* list_bytes = nullptr;
    prometheus::Gauge* list_items = nullptr;
    // end is on the wall axis only when handed out (ClockReading::place).
    std::deque<std::pair<MonoTime, CallSample>> recent;
    OperationStats stats;
  };
  PerOp& per_op(const std::string& op);  // requires mu_
  void observe_locked(const std::string& op, PerOp& p, int grpc_code, double seconds);
  void record_locked(const std::string& op, int grpc_code, double seconds, const ClockReading& now,
                     CallTarget target = {});
  OperationStats stats_locked(const std::string& op, const PerOp& p, const ClockReading& now) const;

  const Clock& clock_;
  const MetricDetail detail_;
  prometheus::Family<prometheus::Counter>& total_family_;
  prometheus::Family<prometheus::Counter>& errors_family_;
  prometheus::Family<prometheus::Histogram>& duration_family_;
  prometheus::Family<prometheus::Gauge>& bytes_family_;
  prometheus::Family<prometheus::Gauge>& items_family_;

  mutable std::mutex mu_;
  std::map<std::string, PerOp> ops_;
  std::map<CallId, InFlight> in_flight_;
  CallId next_id_ = 1;
  ConnectProblem unreachable_ = ConnectProblem::kNone;
  bool answered_ = false;  // a CRI call has succeeded since start
};

}  // namespace plegscope
