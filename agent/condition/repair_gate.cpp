#include "condition/repair_gate.h"

#include <set>

namespace plegscope {
namespace {

// The kubelet before 1.37 with its EventedPLEG gate relists only every
// 300 s: a flat count says nothing until that period has passed too.
constexpr double kEventedLegacyRelistSeconds = 300;

}  // namespace

KubeletAgreement kubelet_agreement(const Report& r, const RepairGateOptions& options) {
  const Report::Kubelet& k = r.kubelet;
  const double hang = to_seconds(options.hang_threshold);
  // The Ready condition, where read: its message names PLEG or the runtime
  // only while the kubelet holds the node NotReady for them.
  const std::optional<std::string>& path = r.runtime_status.ready_message_path;
  const bool ready_read = k.ready_message.has_value() && path.has_value();
  if (ready_read && *path != "other") return {KubeletSays::kAgrees, "ready_condition"};
  // Its PLEG metrics, where read (a scrape that succeeded and carried the
  // relist histogram).
  const bool metrics_read = k.reachable && k.seconds_since_relist_advanced.has_value();
  if (metrics_read) {
    if (k.last_seen_age_seconds && *k.last_seen_age_seconds >= r.relist.threshold_seconds)
      return {KubeletSays::kAgrees, "pleg_last_seen"};
    const double stall = hang + to_seconds(options.kubelet_scrape_interval) +
                         (k.model == "evented_legacy" ? kEventedLegacyRelistSeconds : 0);
    if (*k.seconds_since_relist_advanced >= stall) return {KubeletSays::kAgrees, "pleg_relist_stalled"};
    if (k.relist_p99_seconds && *k.relist_p99_seconds >= hang) return {KubeletSays::kAgrees, "pleg_relist_slow"};
  }
  if (ready_read && metrics_read) return {KubeletSays::kDisagrees, "ready_condition+pleg_metrics"};
  if (ready_read) return {KubeletSays::kDisagrees, "ready_condition"};
  if (metrics_read) return {KubeletSays::kDisagrees, "pleg_metrics"};
  return {KubeletSays::kUnreadable, ""};
}

bool node_evidence(const Cause& c) {
  switch (c.id) {
    case CauseId::kShimHung:  // /proc: a helper's threads in D
      return true;
    case CauseId::kRuntimeUnavailable:  // the socket: refused, or gone after it answered
      return c.form == Form::kDown || c.form == Form::kSocketMissing;
    case CauseId::kPidExhaustion: {  // the kernel's pids counters
      const std::string& scope = c.details<PidExhaustionDetails>().limit_scope;
      return scope == "runtime" || scope == "node";
    }
    default:
      return false;
  }
}

const char* withheld_name(Withheld w) {
  switch (w) {
    case Withheld::kNone: return "none";
    case Withheld::kKubeletDisagrees: return "kubelet_disagrees";
    case Withheld::kKubeletUnreadable: return "kubelet_unreadable";
    case Withheld::kFleetShare: return "fleet_share";
    case Withheld::kFleetUnknown: return "fleet_unknown";
  }
  return "none";
}

Withheld kubelet_gate(const KubeletAgreement& kubelet, const Cause& top) {
  switch (kubelet.says) {
    case KubeletSays::kAgrees: return Withheld::kNone;
    case KubeletSays::kDisagrees: return Withheld::kKubeletDisagrees;
    case KubeletSays::kUnreadable: return node_evidence(top) ? Withheld::kNone : Withheld::kKubeletUnreadable;
  }
  return Withheld::kKubeletUnreadable;
}

FleetCount count_fleet(const std::vector<FleetNode>& nodes, const std::string& self) {
  std::set<std::string> agents{self}, advising{self};
  for (const FleetNode& n : nodes) {
    agents.insert(n.name);
    if (n.unhealthy || n.advised) advising.insert(n.name);
  }
  return {static_cast<int>(agents.size()), static_cast<int>(advising.size())};
}

bool fleet_withholds(const FleetCount& count, const RepairGateOptions& options) {
  if (options.fleet_max_share >= 1 || count.agents <= 0) return false;
  return count.advising >= 2 && static_cast<double>(count.advising) / count.agents > options.fleet_max_share;
}

std::optional<ConditionWrite> gate_write(const std::optional<ConditionWrite>& due, Withheld withheld,
                                         const std::optional<ConditionWrite>& written) {
  if (withheld == Withheld::kNone) return due;
  // Advice that stands is withdrawn now, not at its next heartbeat.
  if (written && written->problem) return ConditionWrite{false, std::nullopt, ConditionChange::kRecovered};
  if (due && due->problem) return std::nullopt;
  return due;
}

}  // namespace plegscope
