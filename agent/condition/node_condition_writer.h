#pragma once
// The node conditions plegscope.io/PLEGUnhealthy (and its Events) and
// plegscope.io/NodeRepairAdvised, written
// through the API server for the agent's own node only (--node-condition):
// the one write plegscope makes, never a write on the host. Reads the
// published diagnosis once per `interval` on its own thread, asks the
// ConditionPolicy what is due, patches nodes/<self>/status, and records an
// Event at each transition (deduplicated by the EventCorrelator). A failed
// call is state for the report, retried with back-off, never fatal, and the
// relist never waits for it.
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "condition/condition_policy.h"
#include "condition/event_correlator.h"
#include "condition/node_condition_api.h"
#include "condition/repair_gate.h"
#include "diagnoser/node_condition_state.h"
#include "node/diagnosis_service.h"

namespace plegscope {

struct NodeConditionOptions {
  ConditionPolicyOptions policy;
  // plegscope.io/NodeRepairAdvised: True once a node-level cause has held
  // this long (--node-repair-advised-after); its clearing, flapping and
  // heartbeat follow `policy`.
  Duration repair_after = std::chrono::minutes(10);
  // Who must agree before NodeRepairAdvised says True (repair_gate.h).
  RepairGateOptions gate;
  // The other nodes' conditions are listed at most this often, and only
  // while True is due or stands.
  Duration fleet_refresh = std::chrono::seconds(30);
  Duration interval = std::chrono::seconds(1);
  Duration retry_max = std::chrono::seconds(30);  // the longest back-off after failed calls
};

// The condition's message for a write: agent/report's words, passed in by
// the CLI (agent/condition has no English).
using ConditionMessage = std::function<std::string(const Report& report, std::optional<CauseId> cause)>;

// NodeRepairAdvised's policy: `policy` with the repair window as its hold.
ConditionPolicyOptions repair_policy_options(const NodeConditionOptions& options);

// Thread-safe: start/stop from one thread; step() is what the thread runs.
class NodeConditionWriter {
 public:
  // `api` nullopt: not in a cluster; every step says so in the report.
  NodeConditionWriter(std::optional<ApiServerConfig> api, std::string node_name, NodeConditionOptions options,
                      const DiagnosisService& diagnosis, const Clock& clock, ConditionMessage message);
  ~NodeConditionWriter() { stop(); }
  void start();
  void stop();
  // One step on the calling thread (tests).
  void step();
  // What it wrote and whether the API server took it, for the report.
  NodeConditionState state() const;

 private:
  // One condition type: its state machine and what was last written.
  struct Slot {
    const char* type;
    ConditionPolicy policy;
    TimePoint transition{};  // lastTransitionTime of what was written
  };
  // Writes what SLOT's policy says is due; the write, or nullopt when
  // nothing was due or the call failed.
  std::optional<ConditionWrite> write(Slot& slot, const ConditionVerdict& verdict, const Report& report,
                                      MonoTime now);
  // Makes `due` (nullopt: nothing) on SLOT.
  std::optional<ConditionWrite> apply(Slot& slot, const std::optional<ConditionWrite>& due, const Report& report,
                                      MonoTime now);
  // NodeRepairAdvised through the gate (repair_gate.h).
  void write_repair(const ConditionVerdict& verdict, const Report& report, MonoTime now);
  Withheld fleet_gate(MonoTime now);
  bool call(const WriteOutcome& outcome, MonoTime now);
  void record_event(const ConditionWrite& write, const std::string& reason, const std::string& message);

  const std::optional<ApiServerConfig> api_;
  const std::string node_name_;
  const NodeConditionOptions options_;
  const DiagnosisService& diagnosis_;
  const Clock& clock_;
  const ConditionMessage message_;
  Slot broad_;   // plegscope.io/PLEGUnhealthy, with Events
  Slot repair_;  // plegscope.io/NodeRepairAdvised
  EventCorrelator events_;
  mutable std::mutex state_mu_;  // state_ is written by the step, read by the report
  NodeConditionState state_;
  int failures_in_a_row_ = 0;
  std::optional<MonoTime> fleet_read_at_;
  FleetFetch fleet_;
  std::string logged_advice_;  // the repair advice state last logged
  std::optional<MonoTime> retry_at_;
  PeriodicTasks thread_;  // its own: a write waits up to the API server's timeouts
};

}  // namespace plegscope
