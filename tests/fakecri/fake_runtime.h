#pragma once
// Wires one fake runtime together: scenario -> node model, faults, call log,
// event bus, gRPC service on the socket, and the simulator driving phases.
// Used by main() and by the in-process gRPC tests.
#include <memory>
#include <string>

#include "call_log.h"
#include "event_bus.h"
#include "fault_injector.h"
#include "grpc_endpoint.h"
#include "node_model.h"
#include "runtime_service.h"
#include "scenario.h"
#include "simulator.h"
#include "state_changes.h"
#include "unserved_methods.h"

namespace fakecri {

class FakeRuntime {
 public:
  FakeRuntime(Scenario scenario, std::string socket_path, const Clock& clock);
  ~FakeRuntime();

  // Enters the first phase (serving the socket if it is up) and starts the
  // simulator thread. false + error if the socket cannot be served.
  bool start(std::string* error, Duration tick = std::chrono::milliseconds(20));
  // Releases hangs, closes event streams, stops serving. Idempotent.
  void shutdown();

  const Scenario& scenario() const { return scenario_; }
  SimulatedNode& node() { return node_; }
  CallLog& calls() { return calls_; }
  FaultInjector& faults() { return faults_; }
  EventBus& events() { return events_; }
  const StateChangeLog& changes() const { return changes_; }
  Simulator& simulator() { return simulator_; }
  GrpcEndpoint& endpoint() { return endpoint_; }

 private:
  const Scenario scenario_;
  const Clock& clock_;
  SimulatedNode node_;
  CallLog calls_;
  EventBus events_;
  StateChangeLog changes_;
  FaultInjector faults_;
  RuntimeService service_;
  GrpcEndpoint endpoint_;
  Simulator simulator_;
  bool shut_down_ = false;
};

}  // namespace fakecri
