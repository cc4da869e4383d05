// The repair gate (agent/condition/repair_gate.h) as docs/condition.md's
// table: every row of "When repair is advised" is a case here, so the table
// and the code cannot drift apart without a test failing.
#include <gtest/gtest.h>

#include "condition/repair_gate.h"

namespace plegscope {
namespace {

using std::chrono::seconds;

// The kubelet's Ready messages, as the kubelet writes them.
const char* kReady = "kubelet is posting ready status";
const char* kPlegNotHealthy = "PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s";
const char* kRuntimeDown = "container runtime is down";

Cause cause(CauseId id, Form form = Form::kFound) {
  Cause c;
  c.id = id;
  c.form = form;
  return c;
}

// A report whose kubelet section is read as the agent reads it.
struct Kubelet {
  std::optional<std::string> ready_message;
  std::optional<std::string> ready_path;  // what report_sections/runtime_status.cpp makes of the message
  bool metrics = false;
  double flat_seconds = 1;  // since its relist count last moved
  std::optional<double> last_seen_age = 1;
  std::optional<double> p99 = 0.05;
  std::string model = "generic";
};

Report report(const Kubelet& k) {
  Report r;
  r.relist.threshold_seconds = 180;
  r.kubelet.ready_message = k.ready_message;
  r.runtime_status.ready_message_path = k.ready_path;
  r.kubelet.reachable = k.metrics;
  r.kubelet.model = k.model;
  if (k.metrics) {
    r.kubelet.seconds_since_relist_advanced = k.flat_seconds;
    r.kubelet.last_seen_age_seconds = k.last_seen_age;
    r.kubelet.relist_p99_seconds = k.p99;
  }
  return r;
}

RepairGateOptions options() {
  RepairGateOptions o;
  o.hang_threshold = seconds(10);
  o.kubelet_scrape_interval = seconds(5);
  o.fleet_max_share = 0.2;
  return o;
}

KubeletAgreement agreement(const Kubelet& k) { return kubelet_agreement(report(k), options()); }

// Rows 1-4: the kubelet agrees by any one of its signals.
TEST(RepairGate, ReadyNotReadyForPlegOrTheRuntimeAgrees) {
  for (const char* path : {"pleg", "runtime_status", "both"}) {
    Kubelet k;
    k.ready_message = path == std::string("pleg") ? kPlegNotHealthy : kRuntimeDown;
    k.ready_path = path;
    k.metrics = true;  // and its metrics say all is well: the Ready condition is enough
    const auto a = agreement(k);
    EXPECT_EQ(a.says, KubeletSays::kAgrees) << path;
    EXPECT_EQ(a.signal, "ready_condition") << path;
  }
}

TEST(RepairGate, ThePlegMetricsAgreeByLastSeenStallOrSlowRelists) {
  Kubelet last_seen{kReady, "other", true, 200, 185.0, 0.05};
  EXPECT_EQ(agreement(last_seen).signal, "pleg_last_seen");
  Kubelet stalled{kReady, "other", true, 15, 12.0, 0.05};  // 10 s + a 5 s scrape
  EXPECT_EQ(agreement(stalled).says, KubeletSays::kAgrees);
  EXPECT_EQ(agreement(stalled).signal, "pleg_relist_stalled");
  Kubelet slow{std::nullopt, std::nullopt, true, 1, 1.0, 12.0};
  EXPECT_EQ(agreement(slow).says, KubeletSays::kAgrees);
  EXPECT_EQ(agreement(slow).signal, "pleg_relist_slow");
}

// Row 5: a kubelet read and at ease disagrees, whatever the agent sees.
TEST(RepairGate, AKubeletAtEaseDisagrees) {
  Kubelet both{kReady, "other", true, 14.9, 1.0, 9.9};
  EXPECT_EQ(agreement(both).says, KubeletSays::kDisagrees);
  EXPECT_EQ(agreement(both).signal, "ready_condition+pleg_metrics");
  Kubelet ready_only{kReady, "other", false};
  EXPECT_EQ(agreement(ready_only).says, KubeletSays::kDisagrees);
  EXPECT_EQ(agreement(ready_only).signal, "ready_condition");
  Kubelet metrics_only{std::nullopt, std::nullopt, true, 2, 1.0, 0.1};
  EXPECT_EQ(agreement(metrics_only).signal, "pleg_metrics");
  for (CauseId id : {CauseId::kRuntimeHung, CauseId::kShimHung, CauseId::kRuntimeUnavailable})
    EXPECT_EQ(kubelet_gate(agreement(both), cause(id, Form::kDown)), Withheld::kKubeletDisagrees);
}

TEST(RepairGate, TheLegacyEventedKubeletRelistsEvery300Seconds) {
  Kubelet evented{std::nullopt, std::nullopt, true, 200, 1.0, 0.05, "evented_legacy"};
  EXPECT_EQ(agreement(evented).says, KubeletSays::kDisagrees);
  evented.flat_seconds = 315;
  EXPECT_EQ(agreement(evented).signal, "pleg_relist_stalled");
}

// A scrape that failed, or one without the relist histogram, is no view.
TEST(RepairGate, NothingReadIsUnreadable) {
  EXPECT_EQ(agreement(Kubelet{}).says, KubeletSays::kUnreadable);
  Report r = report(Kubelet{});
  r.kubelet.reachable = true;  // reached, but no relist figures
  EXPECT_EQ(kubelet_agreement(r, options()).says, KubeletSays::kUnreadable);
}

// Rows 6-7: unreadable, only the node's own evidence stands.
TEST(RepairGate, UnreadableOnlyEvidenceOfTheNodeStands) {
  const KubeletAgreement none{KubeletSays::kUnreadable, ""};
  EXPECT_EQ(kubelet_gate(none, cause(CauseId::kShimHung)), Withheld::kNone);
  EXPECT_EQ(kubelet_gate(none, cause(CauseId::kShimHung, Form::kBehindHungCall)), Withheld::kNone);
  EXPECT_EQ(kubelet_gate(none, cause(CauseId::kRuntimeUnavailable, Form::kDown)), Withheld::kNone);
  EXPECT_EQ(kubelet_gate(none, cause(CauseId::kRuntimeUnavailable, Form::kSocketMissing)), Withheld::kNone);
  Cause pids = cause(CauseId::kPidExhaustion);
  pids.details<PidExhaustionDetails>().limit_scope = "node";
  EXPECT_EQ(kubelet_gate(none, pids), Withheld::kNone);
  pids.details<PidExhaustionDetails>().limit_scope = "kubepods";  // one pod's doing
  EXPECT_EQ(kubelet_gate(none, pids), Withheld::kKubeletUnreadable);
  // The agent's own calls: hung, stalled behind a lock, slow disk behind them,
  // the runtime's Status, a flapping or blind socket.
  for (CauseId id : {CauseId::kRuntimeHung, CauseId::kContainerLockStall, CauseId::kRuntimeStatusHung,
                     CauseId::kRuntimeDiskSlow})
    EXPECT_EQ(kubelet_gate(none, cause(id, Form::kCallHung)), Withheld::kKubeletUnreadable) << cause_name(id);
  EXPECT_EQ(kubelet_gate(none, cause(CauseId::kRuntimeUnavailable, Form::kFlapping)), Withheld::kKubeletUnreadable);
  EXPECT_EQ(kubelet_gate(none, cause(CauseId::kRuntimeUnavailable, Form::kBlind)), Withheld::kKubeletUnreadable);
}

TEST(RepairGate, AgreementOpensTheGateForEveryCause) {
  const KubeletAgreement yes{KubeletSays::kAgrees, "pleg_relist_stalled"};
  for (CauseId id : {CauseId::kRuntimeHung, CauseId::kKubeletInternal, CauseId::kRuntimeDiskSlow})
    EXPECT_EQ(kubelet_gate(yes, cause(id)), Withheld::kNone) << cause_name(id);
}

// Rule 3, the fleet share.
TEST(RepairGate, TheFleetCountsAgentsAndThoseAdvisingOrAboutTo) {
  std::vector<FleetNode> nodes = {{"a", false, false}, {"b", true, false}, {"c", true, true},
                                  {"d", false, false}, {"self", false, false}};
  const FleetCount count = count_fleet(nodes, "self");
  EXPECT_EQ(count.agents, 5);
  EXPECT_EQ(count.advising, 3);  // b, c and this node
  // The node itself counts once, listed or not (its condition may not be written yet).
  EXPECT_EQ(count_fleet({{"a", false, false}}, "self").agents, 2);
}

TEST(RepairGate, MoreThanTheShareAndMoreThanOneNodeWithholds) {
  const RepairGateOptions o = options();
  EXPECT_FALSE(fleet_withholds({10, 2}, o));  // 20 %: not more than the share
  EXPECT_TRUE(fleet_withholds({10, 3}, o));
  EXPECT_FALSE(fleet_withholds({3, 1}, o));   // one node alone is never the fleet
  EXPECT_FALSE(fleet_withholds({1, 1}, o));
  EXPECT_TRUE(fleet_withholds({3, 2}, o));
  RepairGateOptions off = o;
  off.fleet_max_share = 1;
  EXPECT_FALSE(fleet_withholds({10, 10}, off));
}

// What reaches the API server.
TEST(RepairGate, AWithheldTrueIsNoWriteWhereFalseStandsAndAWithdrawalWhereTrueStands) {
  const ConditionWrite yes{true, CauseId::kRuntimeHung, ConditionChange::kUnhealthy};
  const ConditionWrite no{false, std::nullopt, ConditionChange::kFirstHealthy};
  const ConditionWrite beat{true, CauseId::kRuntimeHung, ConditionChange::kHeartbeat};
  // Open: as due.
  EXPECT_TRUE(gate_write(yes, Withheld::kNone, no)->problem);
  EXPECT_FALSE(gate_write(std::nullopt, Withheld::kNone, yes));
  // Withheld before anything or where False stands: nothing, every step.
  EXPECT_FALSE(gate_write(yes, Withheld::kKubeletDisagrees, std::nullopt));
  EXPECT_FALSE(gate_write(yes, Withheld::kFleetShare, no));
  EXPECT_FALSE(gate_write(std::nullopt, Withheld::kFleetShare, no));
  // Withheld where True stands: withdrawn at once, due or not.
  for (const auto& due : {std::optional<ConditionWrite>(beat), std::optional<ConditionWrite>()}) {
    auto w = gate_write(due, Withheld::kKubeletDisagrees, yes);
    ASSERT_TRUE(w);
    EXPECT_FALSE(w->problem);
    EXPECT_EQ(w->change, ConditionChange::kRecovered);
    EXPECT_FALSE(w->cause);
  }
  // A False that is due goes through whatever the gate says.
  EXPECT_FALSE(gate_write(no, Withheld::kFleetUnknown, std::nullopt)->problem);
}

TEST(RepairGate, TheNodeListKeepsNodesWithTheConditionAndItsContinueToken) {
  const std::string list = R"({"kind":"NodeList","metadata":{"continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ=="},
    "items":[
      {"metadata":{"name":"w1"},"status":{"conditions":[{"type":"Ready","status":"True"},
        {"type":"plegscope.io/PLEGUnhealthy","status":"True"},{"type":"plegscope.io/NodeRepairAdvised","status":"False"}]}},
      {"metadata":{"name":"w2"},"status":{"conditions":[{"type":"plegscope.io/PLEGUnhealthy","status":"False"},
        {"type":"plegscope.io/NodeRepairAdvised","status":"True"}]}},
      {"metadata":{"name":"no-agent"},"status":{"conditions":[{"type":"Ready","status":"True"}]}},
      {"metadata":{"name":"bare"}}]})";
  std::string error;
  auto page = parse_fleet_page(list, &error);
  ASSERT_TRUE(page) << error;
  ASSERT_EQ(page->nodes.size(), 2u);
  EXPECT_EQ(page->nodes[0].name, "w1");
  EXPECT_TRUE(page->nodes[0].unhealthy);
  EXPECT_FALSE(page->nodes[0].advised);
  EXPECT_FALSE(page->nodes[1].unhealthy);
  EXPECT_TRUE(page->nodes[1].advised);
  EXPECT_EQ(page->next, "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ==");
  EXPECT_FALSE(parse_fleet_page(R"({"kind":"Status"})", &error));
  EXPECT_EQ(error, "not a NodeList");
}

TEST(RepairGate, WithheldNamesAreTheMetricStates) {
  EXPECT_STREQ(withheld_name(Withheld::kKubeletDisagrees), "kubelet_disagrees");
  EXPECT_STREQ(withheld_name(Withheld::kKubeletUnreadable), "kubelet_unreadable");
  EXPECT_STREQ(withheld_name(Withheld::kFleetShare), "fleet_share");
  EXPECT_STREQ(withheld_name(Withheld::kFleetUnknown), "fleet_unknown");
}

}  // namespace
}  // namespace plegscope
