#include "node/diagnosis_service.h"

#include "common/metric_family.h"

namespace plegscope {
namespace {

DiagnoserThresholds thresholds_from(const DiagnosisOptions& options) {
  DiagnoserThresholds t;
  t.hang_seconds = to_seconds(options.hang_threshold);
  return t;
}

}  // namespace

bool Diagnosis::has_verdict() const {
  if (report.relist.seconds_since_last_seen) return true;  // a relist succeeded
  for (const TimelineEntry& relist : report.timeline)
    if (relist.error && !relist.in_progress) return true;  // or failed
  for (const Cause& cause : report.causes)
    if (cause.severity == Severity::kCritical) return true;  // a call hung past the threshold meanwhile
  return false;
}

DiagnosisService::DiagnosisService(const Node& node, const Clock& clock, DiagnosisOptions options)
    : node_(node), clock_(clock), options_(options), thresholds_(thresholds_from(options)) {}

void DiagnosisService::read_condition_from(std::function<NodeConditionState()> reader) {
  std::lock_guard<std::mutex> lock(mu_);
  condition_ = std::move(reader);
}

bool DiagnosisService::fresh(const Diagnosis& d, MonoTime now, uint64_t relists) const {
  return d.relists == relists && now - d.made_at < options_.max_age;
}

std::shared_ptr<const Diagnosis> DiagnosisService::published() const {
  std::lock_guard<std::mutex> lock(mu_);
  return published_;
}

std::shared_ptr<const Diagnosis> DiagnosisService::latest() const {
  auto fresh_one = [this](const std::shared_ptr<const Diagnosis>& d) {
    return d && fresh(*d, clock_.monotonic(), node_.relist_count());
  };
  if (auto d = published(); fresh_one(d)) return d;
  std::lock_guard<std::mutex> making(diagnose_mu_);
  if (auto d = published(); fresh_one(d)) return d;  // made while this reader waited
  auto made = std::make_shared<Diagnosis>();
  made->relists = node_.relist_count();  // before the snapshot: a relist during it makes the next read diagnose
  Snapshot snapshot = node_.snapshot();
  std::function<NodeConditionState()> condition;
  {
    std::lock_guard<std::mutex> lock(mu_);
    condition = condition_;
  }
  if (condition) snapshot.node_condition = condition();
  made->made_at = snapshot.monotonic;
  made->report = diagnose(snapshot, thresholds_);
  made->confidences = cause_confidences(made->report);
  std::lock_guard<std::mutex> lock(mu_);
  published_ = made;
  diagnoses_++;
  return published_;
}

uint64_t DiagnosisService::diagnoses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return diagnoses_;
}

std::vector<prometheus::MetricFamily> DiagnosisService::cause_metrics(const Diagnosis* diagnosis) {
  auto family = gauge_family("pleg_diagnosis_cause",
                             "Confidence 0..1 of each /diagnose cause id right now; 0 when absent.");
  for (CauseId id : kAllCauses) {
    double confidence = 0;
    if (diagnosis)
      if (auto it = diagnosis->confidences.find(id); it != diagnosis->confidences.end()) confidence = it->second;
    add_gauge(family, {{"cause", cause_name(id)}}, confidence);
  }
  // Before the first diagnosis is published there is no condition state to
  // export, and a scrape must still answer.
  if (!diagnosis || !diagnosis->report.node_condition.enabled) return {family};
  const NodeConditionState& condition = diagnosis->report.node_condition;
  // A state set, one series per state, 1 for the one in force: the
  // fleet-wide rule counts agents by state without a join.
  auto repair = gauge_family("pleg_node_repair_advice",
                             "1 for the state of plegscope.io/NodeRepairAdvised on this node (advised, not_advised, "
                             "or withheld and why), 0 for the others; only with --node-condition.");
  for (const char* state : {"advised", "not_advised", "withheld_kubelet_disagrees", "withheld_kubelet_unreadable",
                            "withheld_fleet_share", "withheld_fleet_unknown"})
    add_gauge(repair, {{"state", state}}, condition.repair_advice == state ? 1 : 0);
  return {family, repair};
}

std::vector<prometheus::MetricFamily> DiagnosisService::collect_metrics() const {
  return cause_metrics(latest().get());
}

std::vector<prometheus::MetricFamily> DiagnosisService::published_metrics() const {
  return cause_metrics(published().get());
}

}  // namespace plegscope
