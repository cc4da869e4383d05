#include "fault_injector.h"

#include <algorithm>

namespace fakecri {

namespace {
// How often a wait re-checks the caller's cancellation (gRPC offers no
// callback for it in the sync API).
constexpr auto kPoll = std::chrono::milliseconds(20);
}  // namespace

FaultInjector::FaultInjector(uint64_t seed) : rng_(seed ^ 0x9e3779b97f4a7c15ULL) {}

void FaultInjector::enter_phase(const PhaseSpec& phase) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ops_ = phase.ops;
    events_ = phase.events;
    conditions_ = phase.conditions;
    if (pad_->size() != phase.pad_bytes) pad_ = std::make_shared<const std::string>(phase.pad_bytes, 'p');
    ++generation_;
    released_ = false;
  }
  cv_.notify_all();
}

size_t FaultInjector::release() {
  size_t n;
  {
    std::lock_guard<std::mutex> lock(mu_);
    n = hanging_;
    ++releases_;
    released_ = true;
  }
  cv_.notify_all();
  return n;
}

void FaultInjector::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
}

FaultInjector::Plan FaultInjector::plan(Op op) const {
  std::lock_guard<std::mutex> lock(mu_);
  Plan p;
  p.behaviour = ops_[index(op)];
  if (released_) p.behaviour.hang.reset();
  p.generation = generation_;
  p.pad = pad_;
  p.events = events_;
  p.conditions = conditions_;
  return p;
}

FaultInjector::WaitEnd FaultInjector::wait(std::optional<Duration> limit, uint64_t generation, bool end_on_release,
                                           const CancelledFn& cancelled) {
  const auto deadline = limit ? std::chrono::steady_clock::now() + *limit : std::chrono::steady_clock::time_point::max();
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t releases = releases_;
  while (true) {
    if (shutdown_) return WaitEnd::Shutdown;
    if (end_on_release && releases_ != releases) return WaitEnd::Released;
    if (end_on_release && generation_ != generation) return WaitEnd::PhaseChanged;
    if (cancelled && cancelled()) return WaitEnd::Cancelled;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return WaitEnd::Elapsed;
    cv_.wait_until(lock, std::min(deadline, now + kPoll));
  }
}

FaultInjector::WaitEnd FaultInjector::hang(const HangSpec& spec, uint64_t generation, const CancelledFn& cancelled) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++hanging_;
  }
  WaitEnd end = wait(spec.duration, generation, /*end_on_release=*/true, cancelled);
  std::lock_guard<std::mutex> lock(mu_);
  --hanging_;
  return end;
}

FaultInjector::WaitEnd FaultInjector::sleep(Duration d, const CancelledFn& cancelled) {
  if (d.count() <= 0) return WaitEnd::Elapsed;
  return wait(d, 0, /*end_on_release=*/false, cancelled);
}

bool FaultInjector::hangs(const HangSpec& spec, const TargetFn& target) {
  if (spec.pods.every_call()) return true;
  return spec.pods.selects(target ? target() : std::nullopt);
}

double FaultInjector::uniform() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

Duration FaultInjector::draw_latency(const LatencySpec& spec) {
  Duration d = spec.fixed;
  if (spec.jitter.count() > 0) d += Duration(static_cast<Duration::rep>(uniform() * spec.jitter.count()));
  return d;
}

std::optional<grpc::Status> FaultInjector::pick_error(const std::vector<ErrorSpec>& specs, const TargetFn& target) {
  std::optional<std::optional<int>> ordinal;  // computed at most once
  for (const auto& spec : specs) {
    if (!spec.pods.every_call()) {
      if (!ordinal) ordinal = target ? target() : std::nullopt;
      if (!spec.pods.selects(*ordinal)) continue;
    }
    if (spec.rate >= 1.0 || uniform() < spec.rate) return grpc::Status(spec.code, spec.message);
  }
  return std::nullopt;
}

size_t FaultInjector::hanging() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hanging_;
}

bool FaultInjector::released() const {
  std::lock_guard<std::mutex> lock(mu_);
  return released_;
}

bool FaultInjector::is_shutdown() const {
  std::lock_guard<std::mutex> lock(mu_);
  return shutdown_;
}

}  // namespace fakecri
