#pragma once
// What the runtime's CRI Status says, as the kubelet reads it: a plain value
// (no gRPC, no prometheus) that the diagnoser and /healthz read.
//
// The kubelet calls Status every 5 s (after the previous call returned, with
// --runtime-request-timeout as its deadline) and keeps the time of the last
// call that answered with RuntimeReady true. No such answer for 30 s and its
// node goes NotReady with "container runtime is down", two and a half
// minutes before PLEG's 3-minute rule; RuntimeReady false says "container
// runtime not ready: ..." and NetworkReady false "container runtime network
// not ready: ..." (pkg/kubelet/kubelet.go updateRuntimeUp, runtime.go).
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/grpc_code.h"
#include "cri/cni_network_evidence.h"

namespace plegscope {

// The kubelet's threshold for "container runtime is down" (runtimeState's
// baseRuntimeSyncThreshold), fixed in the kubelet: no flag changes it.
inline constexpr Duration kRuntimeDownThreshold = std::chrono::seconds(30);
// How often the kubelet calls Status (wait.Until(updateRuntimeUp, 5s)).
inline constexpr Duration kRuntimeStatusPeriod = std::chrono::seconds(5);

// One of the runtime's conditions as it gave it (CRI RuntimeCondition).
struct RuntimeConditionValue {
  std::string type;  // "RuntimeReady", "NetworkReady"
  bool status = false;
  std::string reason;
  std::string message;
};

// Thread-compatible value.
struct RuntimeStatusEvidence {
  bool enabled = false;  // false: the probe is off, nothing below was measured
  double period_seconds = 0;
  double down_threshold_seconds = 0;
  double deadline_seconds = 0;  // the per-call deadline (--runtime-request-timeout)

  // Instants are placed on the wall axis through the snapshot's reading
  // (ClockReading::place), from the monotonic time they happened.
  std::optional<TimePoint> started;       // the probe's first call
  std::optional<TimePoint> last_success;  // the last answer with RuntimeReady true: the kubelet's sync time
  std::optional<TimePoint> last_answer;   // the last call that returned OK, whatever its conditions
  std::optional<double> in_flight_seconds;  // age of the call still pending, if one is
  double seconds_since_success = 0;  // since last_success, or since started when none
  int calls = 0;                     // calls that returned, since start
  int failures = 0;                  // of them, failed (any gRPC code)
  int consecutive_failures = 0;      // trailing failed calls
  int consecutive_deadlines = 0;     // trailing calls that ended in DEADLINE_EXCEEDED
  GrpcCode last_code = GrpcCode::kOk;
  std::string last_error;            // the last failure's message

  // From the last answer; nullopt when the runtime did not give that
  // condition (the kubelet reads a missing condition as false).
  std::optional<RuntimeConditionValue> runtime_ready;
  std::optional<RuntimeConditionValue> network_ready;
  bool answered = false;  // a call has answered at all (the two above mean something)
  // Readiness changes (runtime or network, either way) over the recent
  // answers (a failed call answers nothing about readiness).
  int transitions_recent = 0;
  int recent_calls = 0;
  // NetworkReady false, read (cri/cni_network.h): what the runtime's
  // message says (no configuration, or a configured plugin's error to CNI
  // STATUS in the plugin's own words), the CNI configuration directory as
  // the last such answer found it (nullopt while the network is ready), and
  // the plugin of its network the error belongs to ("" when the chain has
  // several and the error names none).
  NetworkMessageKind network_message = NetworkMessageKind::kUnknown;
  std::string cni_plugin_error;
  std::optional<CniNetworkRead> cni;
  std::string cni_plugin;

  // The kubelet's rule on the measurements above.
  bool not_completed_yet = false;  // no sync yet and the probe started under 30 s ago
  bool runtime_down = false;       // no sync for 30 s
  // Seconds until the 30 s rule says down, while the sync is late (the last
  // call failed, or one is pending longer than a period); nullopt otherwise.
  std::optional<double> seconds_until_down;
  // The kubelet's runtime errors this probe can see, in its order: the sync
  // error first, then "container runtime not ready: ..."; PLEG's error sits
  // between the two (kubelet_runtime_errors()).
  std::string sync_error;          // "container runtime is down", or "... may not have completed yet"
  std::string runtime_not_ready;   // "container runtime not ready: RuntimeReady=false reason:... message:..."
  std::string network_not_ready;   // "container runtime network not ready: NetworkReady=false reason:..."

  // The kubelet's Ready check on the runtime's side is clean.
  bool healthy() const { return enabled && sync_error.empty() && runtime_not_ready.empty(); }
};

// The kubelet's own words (pkg/kubelet/runtime.go, kubelet.go), which its
// Ready condition's message carries.
inline constexpr const char* kStatusNotCompletedError = "container runtime status check may not have completed yet";
inline constexpr const char* kRuntimeDownError = "container runtime is down";
inline constexpr const char* kRuntimeNotReadyPrefix = "container runtime not ready: ";
inline constexpr const char* kNetworkNotReadyPrefix = "container runtime network not ready: ";
inline constexpr const char* kPlegNotHealthyPrefix = "PLEG is not healthy: ";

// What the kubelet's Ready message (the Node's condition, as read from the
// API server) says of the runtime and PLEG (read_ready_message).
struct ReadyMessageSays {
  bool status_sync = false;  // "is down" or "may not have completed yet"
  bool runtime_not_ready = false;
  bool network_not_ready = false;
  bool pleg = false;
};
}  // namespace plegscope
