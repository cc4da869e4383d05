#pragma once
// Applies the current phase's per-operation behaviour to RPCs: latency,
// hangs and injected errors, plus the interruptible waits they need. Every
// wait ends promptly on shutdown() and when the caller's cancelled() turns
// true (client deadline, server shutdown when the socket goes down), so
// hung calls never keep the process alive. Thread-safe.
#include <grpcpp/support/status.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

#include "scenario.h"

namespace fakecri {

class FaultInjector {
 public:
  using CancelledFn = std::function<bool()>;
  using TargetFn = std::function<std::optional<int>()>;  // pod ordinal a call aims at

  // What one call should suffer, frozen when the call starts.
  struct Plan {
    OpBehaviour behaviour;
    uint64_t generation = 0;  // phase entry count, so a hang ends with its phase
    std::shared_ptr<const std::string> pad;  // container padding, maybe empty
    EventStreamSpec events;
    ConditionsSpec conditions;  // what Status answers
  };

  enum class WaitEnd { Elapsed, Released, PhaseChanged, Cancelled, Shutdown };

  explicit FaultInjector(uint64_t seed);

  void enter_phase(const PhaseSpec& phase);  // copies what it needs
  // Ends every hang in progress and disarms hangs until the next phase entry
  // (the runtime "recovered"). Returns how many calls were hanging.
  size_t release();
  void shutdown();

  Plan plan(Op op) const;  // a disarmed (released) phase yields no hang
  // Whether a call aimed at `target` suffers `spec` (its pod selector).
  static bool hangs(const HangSpec& spec, const TargetFn& target);
  WaitEnd hang(const HangSpec& spec, uint64_t generation, const CancelledFn& cancelled);
  WaitEnd sleep(Duration d, const CancelledFn& cancelled);
  Duration draw_latency(const LatencySpec& spec);  // fixed + uniform jitter
  std::optional<grpc::Status> pick_error(const std::vector<ErrorSpec>& specs, const TargetFn& target);

  size_t hanging() const;
  bool released() const;
  bool is_shutdown() const;

 private:
  WaitEnd wait(std::optional<Duration> limit, uint64_t generation, bool end_on_release,
               const CancelledFn& cancelled);
  double uniform();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  PerOp<OpBehaviour> ops_;
  ConditionsSpec conditions_;
  std::shared_ptr<const std::string> pad_ = std::make_shared<const std::string>();
  EventStreamSpec events_;
  uint64_t generation_ = 0;
  uint64_t releases_ = 0;
  bool released_ = false;
  bool shutdown_ = false;
  size_t hanging_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace fakecri
