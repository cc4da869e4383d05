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
  write(repair_, repair_verdict(verdict), report, now);
}

std::optional<ConditionWrite> NodeConditionWriter::write(Slot& slot, const ConditionVerdict& verdict,
                                                         const Report& report, MonoTime now) {
  const std::optional<ConditionWrite> due = slot.policy.observe(verdict, now);
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
