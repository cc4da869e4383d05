#include "condition/node_condition_writer.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace plegscope {

ConditionPolicyOptions repair_policy_options(const NodeConditionOptions& options) {
  ConditionPolicyOptions out = options.policy;
  out.hold = options.repair_after;
  return out;
}

NodeConditionWriter::NodeConditionWriter(std::optional<ApiServerConfig> api, std::string node_name,
                                         NodeConditionOptions options, const DiagnosisService& diagnosis,
                                         const Clock& clock, ConditionMessage message)
    : api_(std::move(api)),
      node_name_(std::move(node_name)),
      options_(options),
      diagnosis_(diagnosis),
      clock_(clock),
      message_(std::move(message)),
      broad_{kNodeConditionType, ConditionPolicy(options.policy)},
      repair_{kNodeRepairConditionType, ConditionPolicy(repair_policy_options(options))},
      thread_("node-condition", clock) {
  state_.enabled = true;
  if (!api_) {
    state_.outcome = WriteOutcome{ScrapeError::unreachable, 0,
                                   "not in a cluster: KUBERNETES_SERVICE_HOST and _PORT are not set"};
  }
}

void NodeConditionWriter::start() {
  if (!api_) return;
  thread_.every(options_.interval, [this] { step(); });
  thread_.start();
}

void NodeConditionWriter::stop() { thread_.stop(); }

NodeConditionState NodeConditionWriter::state() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return state_;
}

// Books one call; false when it failed (logged when what went wrong changes).
bool NodeConditionWriter::call(const WriteOutcome& outcome, MonoTime now) {
  std::lock_guard<std::mutex> lock(state_mu_);
  if (outcome.ok()) {
    if (!state_.reachable && state_.failures > 0) spdlog::info("API server: node condition writes go through again");
    state_.reachable = true;
    state_.outcome.reset();
    state_.error.reset();
    failures_in_a_row_ = 0;
    retry_at_.reset();
    return true;
  }
  if (!state_.outcome || state_.outcome->error != outcome.error)
    spdlog::warn("API server: node condition or event for {} not written: {} {}", node_name_,
                 scrape_error_name(outcome.error), outcome.detail);
  state_.reachable = false;
  state_.outcome = outcome;
  state_.error.reset();  // worded again by agent/report
  state_.failures++;
  // 1 s, 2 s, 4 s ... up to retry_max: a down API server gets a call now and
  // then, never one per step.
  const int shift = std::min(failures_in_a_row_++, 10);
  retry_at_ = now + std::min<Duration>(options_.retry_max, std::chrono::seconds(1) * (1 << shift));
  return false;
}

void NodeConditionWriter::step() {
  if (!api_) return;
  const MonoTime now = clock_.monotonic();
  if (retry_at_ && now < *retry_at_) return;
  const auto diagnosis = diagnosis_.latest();
  const Report& report = diagnosis->report;
  ConditionVerdict verdict;
  verdict.status = report.status;
  if (!report.causes.empty()) {
    verdict.top = report.causes.front().id;
    verdict.top_severity = report.causes.front().severity;
    verdict.top_advice = report.causes.front().advice;
  }
  verdict.has_verdict =
      report.relist.seconds_since_last_seen.has_value() || verdict.top_severity == Severity::kCritical;
  verdict.blind = report.blind.has_value();
  const std::optional<ConditionWrite> broad = write(broad_, verdict, report, now);
  if (broad && (broad->change == ConditionChange::kUnhealthy || broad->change == ConditionChange::kRecovered ||
                broad->change == ConditionChange::kCauseChanged))
    record_event(*broad, condition_reason(broad->cause), message_(report, broad->cause));
  if (retry_at_) return;  // the API server refused or did not answer: back off first
  write_repair(verdict, report, now);
}

Withheld NodeConditionWriter::fleet_gate(MonoTime now) {
  const RepairGateOptions& gate = options_.gate;
  if (gate.fleet_max_share >= 1) return Withheld::kNone;
  if (!fleet_read_at_ || now - *fleet_read_at_ >= options_.fleet_refresh) {
    fleet_ = fetch_fleet(*api_);
    fleet_read_at_ = now;
    if (!fleet_.outcome.ok())
      spdlog::warn("API server: the other nodes' conditions not listed ({} {}): repair advice withheld",
                   scrape_error_name(fleet_.outcome.error), fleet_.outcome.detail);
  }
  const FleetCount count = count_fleet(fleet_.nodes, node_name_);
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    state_.fleet_agents = fleet_.outcome.ok() ? std::optional<int64_t>(count.agents) : std::nullopt;
    state_.fleet_advising = fleet_.outcome.ok() ? std::optional<int64_t>(count.advising) : std::nullopt;
  }
  if (!fleet_.outcome.ok()) return Withheld::kFleetUnknown;
  return fleet_withholds(count, gate) ? Withheld::kFleetShare : Withheld::kNone;
}

void NodeConditionWriter::write_repair(const ConditionVerdict& verdict, const Report& report, MonoTime now) {
  const ConditionVerdict repair = repair_verdict(verdict);
  const std::optional<ConditionWrite> due = repair_.policy.observe(repair, now);
  const std::optional<ConditionWrite> written = repair_.policy.written();
  // The gate is asked whenever True is due or stands: advice given is
  // withdrawn as soon as the kubelet or the fleet no longer bears it out.
  const bool asks = (due && due->problem) || repair_.policy.held(now) ||
                    (written && written->problem && repair.status != Status::kHealthy);
  Withheld withheld = Withheld::kNone;
  std::string kubelet;
  if (asks && !report.causes.empty()) {
    const KubeletAgreement agreement = kubelet_agreement(report, options_.gate);
    kubelet = agreement.says == KubeletSays::kAgrees      ? "agrees:" + agreement.signal
              : agreement.says == KubeletSays::kDisagrees ? "disagrees:" + agreement.signal
                                                          : "unreadable";
    withheld = kubelet_gate(agreement, report.causes.front());
    if (withheld == Withheld::kNone) withheld = fleet_gate(now);
  }
  const std::optional<ConditionWrite> make = gate_write(due, withheld, written);
  const std::optional<ConditionWrite> done = apply(repair_, make, report, now);
  std::lock_guard<std::mutex> lock(state_mu_);
  if (done) state_.repair_status = done->problem ? "True" : "False";
  const bool advised = repair_.policy.written() && repair_.policy.written()->problem;
  state_.repair_advice = withheld != Withheld::kNone ? std::string("withheld_") + withheld_name(withheld)
                         : advised                   ? "advised"
                                                     : "not_advised";
  if (asks) state_.repair_kubelet = kubelet;
  if (withheld != Withheld::kNone && state_.repair_advice != logged_advice_)
    spdlog::info("node condition {} on {}: repair advice withheld ({}), kubelet {}{}", repair_.type, node_name_,
                 withheld_name(withheld), kubelet,
                 state_.fleet_agents ? fmt::format(", {} of {} agents advising or about to", *state_.fleet_advising,
                                                   *state_.fleet_agents)
                                     : std::string());
  logged_advice_ = state_.repair_advice;
}

std::optional<ConditionWrite> NodeConditionWriter::write(Slot& slot, const ConditionVerdict& verdict,
                                                         const Report& report, MonoTime now) {
  return apply(slot, slot.policy.observe(verdict, now), report, now);
}

std::optional<ConditionWrite> NodeConditionWriter::apply(Slot& slot, const std::optional<ConditionWrite>& due,
                                                         const Report& report, MonoTime now) {
  if (!due) return std::nullopt;
  NodeConditionValue value;
  value.type = slot.type;
  value.problem = due->problem;
  value.reason = condition_reason(due->cause);
  value.message = message_(report, due->cause);
  value.heartbeat = clock_.now();
  const auto before = slot.policy.written();
  if (!before) {
    // A restarted agent keeps the lastTransitionTime of the same status
    // written before it: the problem did not start with the restart.
    slot.transition = value.heartbeat;
    NodeReadyFetch existing = fetch_node_condition(*api_, node_name_, slot.type);
    if (existing.ready && existing.ready->status == (due->problem ? "True" : "False"))
      if (auto t = parse_api_time(existing.ready->last_transition_time)) slot.transition = *t;
  } else if (before->problem != due->problem) {
    slot.transition = value.heartbeat;
  }
  value.transition = slot.transition;
  if (!call(patch_node_condition(*api_, node_name_, value), now)) return std::nullopt;
  slot.policy.confirm(*due, now);
  if (due->change != ConditionChange::kHeartbeat)
    spdlog::info("node condition {}={} reason {} on {}", slot.type, due->problem ? "True" : "False", value.reason,
                 node_name_);
  if (&slot != &broad_) return due;
  std::lock_guard<std::mutex> lock(state_mu_);
  state_.status = due->problem ? "True" : "False";
  state_.reason = value.reason;
  state_.message = value.message;
  state_.last_write = value.heartbeat;
  state_.writes++;
  return due;
}

void NodeConditionWriter::record_event(const ConditionWrite& write, const std::string& reason,
                                       const std::string& message) {
  const Clock& clock = clock_;
  bool repeat = false;
  NodeEvent event = events_.next(node_name_, write.problem ? "Warning" : "Normal", reason, message, clock.now(),
                                 clock.monotonic(), &repeat);
  WriteOutcome outcome = repeat ? patch_node_event(*api_, event) : create_node_event(*api_, event);
  if (repeat && outcome.error == ScrapeError::not_found) {
    // The earlier Event expired (the API server keeps them an hour): a new one.
    events_.failed(event);
    event = events_.next(node_name_, event.type, reason, message, clock.now(), clock.monotonic(), &repeat);
    outcome = create_node_event(*api_, event);
  }
  if (call(outcome, clock.monotonic())) {
    events_.sent(event, clock.monotonic());
    std::lock_guard<std::mutex> lock(state_mu_);
    state_.events++;
  } else {
    events_.failed(event);
  }
}

}  // namespace plegscope
