#pragma once
// Drives a scenario over time: each step advances the phase schedule,
// applies a newly entered phase (faults, churn, socket up/down) and ticks the
// node model. step() is the testable unit; start() runs it on a thread.
// Thread-safe.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "fault_injector.h"
#include "grpc_endpoint.h"
#include "node_model.h"
#include "phase_schedule.h"
#include "scenario.h"

namespace fakecri {

struct PhaseStatus {
  size_t index = 0;
  std::string name;
  double elapsed_seconds = 0;
  bool held = false;
  uint64_t entries = 0;  // phases entered so far
};

class Simulator {
 public:
  Simulator(const Scenario& scenario, const Clock& clock, SimulatedNode& node, FaultInjector& faults,
            SocketControl& socket);
  ~Simulator();

  // Returns false (with the reason) if the socket could not be served.
  bool step(std::string* error = nullptr);
  void start(Duration tick = std::chrono::milliseconds(20));
  void stop();

  bool jump(const std::string& phase, bool hold);  // false: no such phase
  void resume();
  PhaseStatus status() const;

 private:
  bool step_locked(std::string* error);

  const Scenario& scenario_;
  const Clock& clock_;
  SimulatedNode& node_;
  FaultInjector& faults_;
  SocketControl& socket_;

  mutable std::mutex mu_;  // schedule + applied phase
  PhaseSchedule schedule_;
  std::optional<size_t> applied_;
  uint64_t entries_ = 0;
  bool force_apply_ = false;

  std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace fakecri
