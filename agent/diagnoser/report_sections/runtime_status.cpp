#include "diagnoser/report_sections/runtime_status.h"

#include <algorithm>

namespace plegscope {
namespace {

// The kubelet's Ready message holds its runtime errors joined: which of the
// two paths it names.
std::string message_path(const ReadyMessageSays& says) {
  const bool status = says.status_sync || says.runtime_not_ready || says.network_not_ready;
  const bool pleg = says.pleg;
  return status && pleg ? "both" : status ? "runtime_status" : pleg ? "pleg" : "other";
}

}  // namespace

void fill_runtime_status(const Snapshot& s, Report& report) {
  Report::RuntimeStatus& r = report.runtime_status;
  const RuntimeStatusEvidence& e = s.runtime_status;
  if (s.kubelet.ready_message) r.ready_message_path = message_path(s.kubelet.ready_says);
  r.enabled = e.enabled && e.started.has_value();
  const bool pleg_on = !s.healthy;
  std::optional<double> pleg_in = pleg_on ? std::optional<double>(0.0) : report.seconds_to_unhealthy;
  if (!r.enabled) {
    r.not_ready_path = pleg_on ? "pleg" : "none";
    r.not_ready_in_seconds = pleg_in;
    return;
  }
  r.seconds_since_success = e.seconds_since_success;
  r.in_flight_seconds = e.in_flight_seconds;
  r.runtime_down = e.runtime_down;
  r.runtime_ready = e.runtime_ready;
  r.network_ready = e.network_ready;
  r.failures_in_a_row = e.consecutive_failures;
  if (e.consecutive_failures > 0) r.last_error = std::string(grpc_code_name(e.last_code)) + ": " + e.last_error;
  r.kubelet_errors = s.kubelet_runtime_errors;

  // The Status path: on while down or not ready; near while a sync is late
  // (a pending or failing call), in the seconds the 30 s rule has left.
  const bool status_on = e.runtime_down || !e.runtime_not_ready.empty() || !e.network_not_ready.empty();
  std::optional<double> status_in = status_on ? std::optional<double>(0.0) : e.seconds_until_down;
  // A call in flight past the hang threshold is late before a period passed.
  const bool named = std::any_of(report.causes.begin(), report.causes.end(),
                                 [](const Cause& c) { return c.id == CauseId::kRuntimeStatusHung; });
  if (!status_in && named) status_in = std::max(0.0, e.down_threshold_seconds - e.seconds_since_success);
  if (status_on && pleg_on) {
    r.not_ready_path = "both";
    r.not_ready_in_seconds = 0;
  } else if (status_in && (!pleg_in || *status_in <= *pleg_in)) {
    r.not_ready_path = "runtime_status";
    r.not_ready_in_seconds = status_in;
  } else if (pleg_in) {
    r.not_ready_path = "pleg";
    r.not_ready_in_seconds = pleg_in;
  }
}

}  // namespace plegscope
