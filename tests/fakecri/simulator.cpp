#include "simulator.h"

#include <spdlog/spdlog.h>

namespace fakecri {

namespace {
std::vector<std::optional<Duration>> durations_of(const Scenario& s) {
  std::vector<std::optional<Duration>> out;
  for (const auto& p : s.phases) out.push_back(p.duration);
  return out;
}
}  // namespace

Simulator::Simulator(const Scenario& scenario, const Clock& clock, SimulatedNode& node, FaultInjector& faults,
                     SocketControl& socket)
    : scenario_(scenario),
      clock_(clock),
      node_(node),
      faults_(faults),
      socket_(socket),
      schedule_(durations_of(scenario), scenario.loop, clock.now()) {}

Simulator::~Simulator() { stop(); }

bool Simulator::step(std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  return step_locked(error);
}

bool Simulator::step_locked(std::string* error) {
  const size_t index = schedule_.advance(clock_.now());
  bool ok = true;
  if (!applied_ || *applied_ != index || force_apply_) {
    const PhaseSpec& phase = scenario_.phases[index];
    spdlog::info("phase {} \"{}\"", index, phase.name);
    faults_.enter_phase(phase);
    node_.set_churn(phase.churn);
    applied_ = index;
    force_apply_ = false;
    ++entries_;
  }
  // Re-asserted every step: a failed bind is retried on the next tick.
  std::string why;
  if (!socket_.set_serving(scenario_.phases[index].socket_up, &why)) {
    ok = false;
    if (error) *error = why;
  }
  node_.tick();
  return ok;
}

void Simulator::start(Duration tick) {
  thread_ = std::thread([this, tick] {
    std::unique_lock<std::mutex> lock(run_mu_);
    while (!stopping_) {
      lock.unlock();
      std::string error;
      if (!step(&error)) spdlog::warn("{}", error);
      lock.lock();
      run_cv_.wait_for(lock, tick, [&] { return stopping_; });
    }
  });
}

void Simulator::stop() {
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    stopping_ = true;
  }
  run_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Simulator::jump(const std::string& phase, bool hold) {
  auto index = scenario_.phase_index(phase);
  if (!index) return false;
  std::lock_guard<std::mutex> lock(mu_);
  schedule_.jump(*index, clock_.now(), hold);
  force_apply_ = true;  // re-entering the current phase re-arms its hangs
  step_locked(nullptr);
  return true;
}

void Simulator::resume() {
  std::lock_guard<std::mutex> lock(mu_);
  schedule_.resume(clock_.now());
}

PhaseStatus Simulator::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  PhaseStatus s;
  s.index = schedule_.current();
  s.name = scenario_.phases[s.index].name;
  s.elapsed_seconds = to_seconds(clock_.now() - schedule_.phase_started());
  s.held = schedule_.held();
  s.entries = entries_;
  return s;
}

}  // namespace fakecri
