#pragma once
// Whether plegscope.io/NodeRepairAdvised may say True: the last gate before
// a remediator that taints, reboots or replaces nodes acts. Pure: the
// report and what the API server says of the other nodes in, a decision out
// (docs/condition.md, "When repair is advised", is this file as a table).
//
// 1. The kubelet must agree. Its own view, as the agent already reads it:
//    the Node's Ready condition (its message names PLEG or the runtime), or
//    its PLEG metrics (its last relist older than its threshold, its relist
//    count not moving, its relists as slow as a hung call). A kubelet whose
//    view is read and says all is well outweighs the agent: the agent's
//    view may be its own (throttled, a connection of its own, a bug).
// 2. Where the kubelet's view cannot be read at all (no metrics, no Ready
//    condition), only evidence of the node itself counts, read from the
//    kernel or the socket rather than from the agent's own calls: a
//    runtime helper in D, a runtime that refuses connections or whose
//    socket is gone, a pids limit at its end.
// 3. The fleet share: when more than a share of a cluster's agents would
//    advise repair at once, the cause is not one node's (a rollout, a
//    kernel, the agent itself), and replacing nodes one after another makes
//    it worse. Advice is withheld on every node and a fleet-wide alert
//    (PlegscopeRepairWithheldFleetWide) says why. The remediators' own
//    guards (maxUnhealthy, minHealthy) stay the last line, not the first.
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "condition/condition_policy.h"
#include "condition/node_condition_api.h"
#include "diagnoser/report.h"

namespace plegscope {

enum class KubeletSays { kAgrees, kDisagrees, kUnreadable };

struct KubeletAgreement {
  KubeletSays says = KubeletSays::kUnreadable;
  // Which of the kubelet's signals decided: "ready_condition",
  // "pleg_last_seen", "pleg_relist_stalled", "pleg_relist_slow" when it
  // agrees; "ready_condition", "pleg_metrics" or both joined by "+" when it
  // was read and disagrees; "" when unreadable.
  std::string signal;
};

struct RepairGateOptions {
  // --hang-threshold: the kubelet's relist count flat this long, or its
  // relists this slow, is the kubelet seeing the same stall.
  Duration hang_threshold = std::chrono::seconds(10);
  // The kubelet's /metrics is read this often (KubeletReaderOptions), so a
  // count seen flat for less than this may have moved unseen.
  Duration kubelet_scrape_interval = std::chrono::seconds(5);
  // --node-repair-fleet-max-share: more than this share of the agents that
  // write the condition (and at least two nodes) withholds advice; 1 turns
  // the guard off.
  double fleet_max_share = 0.2;
};

// The kubelet's view of the node in the report, as the agent read it.
KubeletAgreement kubelet_agreement(const Report& report, const RepairGateOptions& options);

// The cause's evidence is of the node itself (read from /proc, /sys or the
// socket), not only the agent's own calls: it may stand where the kubelet
// cannot be read.
bool node_evidence(const Cause& cause);

enum class Withheld {
  kNone,
  kKubeletDisagrees,   // the kubelet's view was read and does not agree
  kKubeletUnreadable,  // no kubelet view, and the evidence is the agent's own calls
  kFleetShare,         // too many of the cluster's agents at once
  kFleetUnknown,       // the other nodes could not be listed: no advice on a guess
};
// "none", "kubelet_disagrees", "kubelet_unreadable", "fleet_share", "fleet_unknown":
// the `state` label of pleg_node_repair_advice beside "advised" and "not_advised".
const char* withheld_name(Withheld withheld);

// The node's own part of the gate (rules 1 and 2).
Withheld kubelet_gate(const KubeletAgreement& kubelet, const Cause& top);

// FleetNode (condition/node_condition_api.h): one Node that carries
// plegscope.io/PLEGUnhealthy, i.e. an agent with --node-condition runs there.
struct FleetCount {
  int agents = 0;    // nodes whose agent writes the condition, this one included
  int advising = 0;  // of them, advised or about to be (PLEGUnhealthy True), this one included
};
// Counts `nodes` with `self` as advising (its write is the one in question).
// A node whose PLEGUnhealthy is True counts: its repair window is running, so
// agents that cross the window within seconds of each other all see each
// other, whichever writes first.
FleetCount count_fleet(const std::vector<FleetNode>& nodes, const std::string& self);
// Rule 3: more than the share, and more than one node.
bool fleet_withholds(const FleetCount& count, const RepairGateOptions& options);

// The repair write to make: `due` (what the repair policy asks, nullopt for
// nothing) as the gate allows. While withheld, True that stands becomes
// False at once (advice withdrawn, due or not), and a True that is due
// becomes nothing where False stands or nothing was written (no write each
// step while withheld).
std::optional<ConditionWrite> gate_write(const std::optional<ConditionWrite>& due, Withheld withheld,
                                         const std::optional<ConditionWrite>& written);

}  // namespace plegscope
