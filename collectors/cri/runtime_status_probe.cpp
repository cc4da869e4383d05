#include "cri/runtime_status_probe.h"

#include "cri/cni_network.h"
#include "cri/grpc_runtime_client.h"

#include "common/metric_family.h"

namespace plegscope {
namespace {

// The kubelet prints a condition with Go's %v of its RuntimeCondition:
// "RuntimeReady=false reason:NotReady message:...", or "<nil>" when the
// runtime did not give it.
std::string condition_words(const std::optional<RuntimeConditionValue>& c) {
  if (!c) return "<nil>";
  return c->type + "=" + (c->status ? "true" : "false") + " reason:" + c->reason + " message:" + c->message;
}

std::optional<RuntimeConditionValue> find_condition(const cri::StatusResponse& answer, const char* type) {
  for (const auto& c : answer.status().conditions())
    if (c.type() == type) return RuntimeConditionValue{c.type(), c.status(), c.reason(), c.message()};
  return std::nullopt;
}

bool ready(const std::optional<RuntimeConditionValue>& c) { return c && c->status; }

// NetworkReady false: what its message says, and which configured plugin
// it is about.
void read_network_side(RuntimeStatusEvidence& e) {
  if (!e.network_ready) return;
  const NetworkMessage said = read_network_message(e.network_ready->message);
  e.network_message = said.kind;
  e.cni_plugin_error = said.plugin_error;
  if (said.kind == NetworkMessageKind::kPluginError && e.cni && e.cni->network)
    e.cni_plugin = plugin_named(*e.cni->network, said.plugin_error);
}

}  // namespace

RuntimeStatusProbe::RuntimeStatusProbe(RuntimeClient& client, const Clock& clock, RuntimeStatusOptions options)
    : client_(client), clock_(clock), options_(options) {}

namespace {

RuntimeStatusOptions with_deadline(RuntimeStatusOptions options, Duration deadline) {
  options.deadline = deadline;
  return options;
}

}  // namespace

RuntimeStatusProbe::RuntimeStatusProbe(const Options& options, const SourceContext& context)
    : RuntimeStatusProbe(context.runtime, context.clock,
                         with_deadline(options, context.runtime_options.request_timeout)) {}

void RuntimeStatusProbe::start(SourceLanes lanes) {
  if (!options_.enabled) return;
  lanes.quick.every(kPollInterval, [this] { poll(); });
}

void RuntimeStatusProbe::poll() {
  bool begin = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const MonoTime now = clock_.monotonic();
    if (!call_start_ && (!next_call_ || now >= *next_call_)) {
      if (!started_) started_ = now;
      call_start_ = now;
      begin = true;
    }
  }
  // Outside the lock: a client without a queue of its own answers here.
  if (begin) client_.begin_status();
  if (auto result = client_.status_result(begin ? kFirstLook : Duration(0))) finish(*result);
}

std::optional<CniNetworkRead> RuntimeStatusProbe::read_cni_if_not_ready(
    const CallResult<cri::StatusResponse>& result) const {
  if (!result.ok() || ready(find_condition(result.value, "NetworkReady"))) return std::nullopt;
  return read_cni_network(options_.cni_conf_dir);
}

void RuntimeStatusProbe::finish(const CallResult<cri::StatusResponse>& result) {
  std::optional<CniNetworkRead> cni = read_cni_if_not_ready(result);
  std::lock_guard<std::mutex> lock(mu_);
  const MonoTime now = clock_.monotonic();
  call_start_.reset();
  next_call_ = now + options_.period;
  calls_++;
  if (!result.ok()) {
    failures_++;
    consecutive_failures_++;
    consecutive_deadlines_ = result.status.code == GrpcCode::kDeadlineExceeded ? consecutive_deadlines_ + 1 : 0;
    last_code_ = result.status.code;
    last_error_ = result.status.message;
    // A failed call is no answer about readiness (runtime_unavailable is
    // its cause): a runtime killed and started again did not flap.
  } else {
    consecutive_failures_ = 0;
    consecutive_deadlines_ = 0;
    last_code_ = GrpcCode::kOk;
    record_answer(result.value, now);
    cni_ = std::move(cni);
  }
  while (recent_ready_.size() > static_cast<size_t>(kRecentCalls)) recent_ready_.pop_front();
}

// The kubelet's updateRuntimeUp: the network's condition is kept whatever
// the runtime's; only RuntimeReady true moves the sync time.
void RuntimeStatusProbe::record_answer(const cri::StatusResponse& answer, MonoTime now) {
  answered_ = true;
  last_answer_ = now;
  runtime_ready_ = find_condition(answer, "RuntimeReady");
  network_ready_ = find_condition(answer, "NetworkReady");
  if (ready(runtime_ready_)) last_success_ = now;
  recent_ready_.push_back(ready(runtime_ready_) && ready(network_ready_));
}

RuntimeStatusEvidence RuntimeStatusProbe::evidence() const {
  RuntimeStatusEvidence e;
  e.enabled = options_.enabled;
  e.period_seconds = to_seconds(options_.period);
  e.down_threshold_seconds = to_seconds(options_.down_threshold);
  e.deadline_seconds = to_seconds(options_.deadline);
  if (!e.enabled) return e;
  const ClockReading reading = read_clocks(clock_);
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_) return e;
  e.started = reading.place(*started_);
  if (last_success_) e.last_success = reading.place(*last_success_);
  if (last_answer_) e.last_answer = reading.place(*last_answer_);
  if (call_start_) e.in_flight_seconds = to_seconds(reading.mono - *call_start_);
  e.seconds_since_success = to_seconds(reading.mono - last_success_.value_or(*started_));
  e.calls = calls_;
  e.failures = failures_;
  e.consecutive_failures = consecutive_failures_;
  e.consecutive_deadlines = consecutive_deadlines_;
  e.last_code = last_code_;
  e.last_error = last_error_;
  e.answered = answered_;
  e.runtime_ready = runtime_ready_;
  e.network_ready = network_ready_;
  e.cni = cni_;
  e.recent_calls = static_cast<int>(recent_ready_.size());
  for (size_t i = 1; i < recent_ready_.size(); ++i) e.transitions_recent += recent_ready_[i] != recent_ready_[i - 1];

  // runtimeState.runtimeErrors: never synced is "may not have completed
  // yet"; a sync as old as the threshold is "down". An agent that started
  // after the kubelet and never saw a sync in 30 s stands where the kubelet
  // stands 30 s after its last sync: down.
  const double threshold = e.down_threshold_seconds;
  if (!last_success_ && e.seconds_since_success < threshold) {
    e.not_completed_yet = true;
    e.sync_error = kStatusNotCompletedError;
  } else if (e.seconds_since_success >= threshold) {
    e.runtime_down = true;
    e.sync_error = kRuntimeDownError;
  } else if (e.consecutive_failures > 0 || (e.in_flight_seconds && *e.in_flight_seconds >= e.period_seconds)) {
    // Late: the last call failed, or one is pending longer than a period (a
    // healthy sync is up to a period old by design: the next call starts 5 s
    // after the last returned).
    e.seconds_until_down = threshold - e.seconds_since_success;
  }
  if (answered_ && !ready(runtime_ready_))
    e.runtime_not_ready = kRuntimeNotReadyPrefix + condition_words(runtime_ready_);
  if (answered_ && !ready(network_ready_)) {
    e.network_not_ready = kNetworkNotReadyPrefix + condition_words(network_ready_);
    read_network_side(e);
  }
  return e;
}

std::vector<prometheus::MetricFamily> RuntimeStatusProbe::Collect() const {
  if (!options_.enabled) return {};
  const RuntimeStatusEvidence e = evidence();
  auto healthy = gauge_family("pleg_runtime_status_healthy",
                              "1 if the runtime's CRI Status passes the kubelet's checks (an answer with RuntimeReady "
                              "true within 30 s), else 0.");
  add_gauge(healthy, {}, e.healthy() ? 1 : 0);
  auto since = gauge_family("pleg_runtime_status_seconds_since_success",
                            "Seconds since the runtime's CRI Status last answered with RuntimeReady true (since the "
                            "first call while none did); the kubelet says \"container runtime is down\" at 30.");
  add_gauge(since, {}, e.seconds_since_success);
  // No answer, no conditions: a 0 before the runtime ever answered would
  // say "the runtime says not ready" of a runtime that said nothing (an
  // agent that cannot open the socket), and page as CRIRuntimeNotReady.
  if (!e.answered) return {healthy, since};
  auto condition = gauge_family("pleg_runtime_condition",
                                "The runtime's conditions in its last CRI Status answer: 1 true, 0 false or missing; "
                                "absent until the runtime first answers.");
  add_gauge(condition, {{"condition", "RuntimeReady"}}, ready(e.runtime_ready) ? 1 : 0);
  add_gauge(condition, {{"condition", "NetworkReady"}}, ready(e.network_ready) ? 1 : 0);
  return {healthy, since, condition};
}

}  // namespace plegscope
