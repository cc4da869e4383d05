#pragma once
// The runtime's CRI Status, called as the kubelet calls it: every 5 s after
// the previous call returned, with the kubelet's deadline. What it answers
// and how long it takes decide the kubelet's other path to NotReady
// ("container runtime is down" after 30 s without a good answer), which the
// PLEG's lists do not see: a runtime whose Status waits on a stuck CNI
// plugin still lists its containers at once.
//
// The call is timed by the client's OperationTracker like every CRI call
// (pleg_runtime_operations_duration_seconds{operation_type="status"}, and
// its age in flight under pleg_runtime_operation_oldest_in_flight_seconds);
// this source adds the kubelet's rule on top.
#include <deque>
#include <mutex>
#include <optional>

#include "common/clock.h"
#include "common/source.h"
#include "cri/runtime_client.h"
#include "cri/kubelet_runtime_errors.h"
#include "cri/runtime_status_evidence.h"

namespace plegscope {

struct RuntimeStatusOptions {
  bool enabled = true;
  Duration period = kRuntimeStatusPeriod;
  Duration down_threshold = kRuntimeDownThreshold;
  // The client's own deadline (--runtime-request-timeout), as the kubelet's
  // Status has; reported, applied by the client.
  Duration deadline = std::chrono::minutes(2);
  // The runtime's CNI configuration directory (containerd's cni conf_dir,
  // CRI-O's network_dir), read only while NetworkReady is false.
  std::string cni_conf_dir = "/etc/cni/net.d";
};
// Status itself is called as the kubelet calls it, on the client's deadline:
// the one flag says where the runtime's CNI configuration is.
void add_flags(CLI::App& app, RuntimeStatusOptions& options);

// Thread-safe: poll() runs on the quick lane, evidence() and Collect() on
// the HTTP server's threads.
class RuntimeStatusProbe final : public SourceOf<RuntimeStatusEvidence> {
 public:
  // Readiness changes are counted over this many recent calls (a minute).
  static constexpr int kRecentCalls = 12;
  // How often the lane looks for the answer: the measured time of a sync is
  // at most this late (the call's own latency is the tracker's, exact to
  // that too).
  static constexpr Duration kPollInterval = std::chrono::milliseconds(500);
  // Right after a call begins the lane waits this long for its answer, so
  // that a runtime answering as it should is timed to the millisecond in
  // pleg_runtime_operations_duration_seconds{operation_type="status"}; a
  // slower answer is timed to the look that found it (kPollInterval).
  static constexpr Duration kFirstLook = std::chrono::milliseconds(50);

  using Options = RuntimeStatusOptions;
  RuntimeStatusProbe(RuntimeClient& client, const Clock& clock, RuntimeStatusOptions options);
  // On the PLEG block's client, with its deadline (--runtime-request-timeout).
  RuntimeStatusProbe(const Options& options, const SourceContext& context);

  std::string_view name() const override { return "runtime_status"; }
  bool enabled() const override { return options_.enabled; }
  // One job on the quick lane, which it never holds: the call is begun and
  // its answer looked for without waiting (RuntimeClient::begin_status), so
  // a Status that hangs for its whole deadline, as it holds the kubelet's
  // status loop, delays neither the host scan nor the scrapes.
  void start(SourceLanes lanes) override;
  RuntimeStatusEvidence evidence() const override;
  // pleg_runtime_status_healthy, pleg_runtime_condition{condition},
  // pleg_runtime_status_seconds_since_success.
  std::vector<prometheus::MetricFamily> Collect() const override;

  // The lane's job, one step: collects the answer of the call in flight if
  // it came, and begins the next call when it is due (5 s after the last one
  // returned, as the kubelet's loop). Tests call it directly.
  void poll();

 private:
  void finish(const CallResult<cri::StatusResponse>& result);
  void record_answer(const cri::StatusResponse& answer, MonoTime now);  // requires mu_
  // Read before mu_ is taken: a directory listing and a few small files.
  std::optional<CniNetworkRead> read_cni_if_not_ready(const CallResult<cri::StatusResponse>& result) const;

  RuntimeClient& client_;
  const Clock& clock_;
  const RuntimeStatusOptions options_;

  mutable std::mutex mu_;
  std::optional<MonoTime> started_;
  std::optional<MonoTime> call_start_;  // the call in flight
  std::optional<MonoTime> next_call_;   // when the next call is due
  std::optional<MonoTime> last_success_;
  std::optional<MonoTime> last_answer_;
  int calls_ = 0, failures_ = 0, consecutive_failures_ = 0, consecutive_deadlines_ = 0;
  GrpcCode last_code_ = GrpcCode::kOk;
  std::string last_error_;
  std::optional<RuntimeConditionValue> runtime_ready_, network_ready_;
  bool answered_ = false;
  std::deque<bool> recent_ready_;  // per answer (a failed call is none): both conditions true
  std::optional<CniNetworkRead> cni_;
};

}  // namespace plegscope
