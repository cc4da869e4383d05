#pragma once
// When the node condition plegscope.io/PLEGUnhealthy changes, as a pure
// state machine on an injected monotonic time: the diagnosis's verdict in,
// the condition to write (or nothing) out. No I/O; the writer
// (node_condition_writer.h) does the API calls and confirms each write.
//
// - True when the status is unhealthy, or at risk with a critical top cause
//   held for `hold` (a call hung past the hang threshold, a shim in D).
// - False only after `clear_after` of healthy verdicts, and never before the
//   agent has a verdict of its own: an agent restarted during a fault waits
//   out `clear_after` first, which is longer than the hang threshold, so the
//   fault is seen again before anything is cleared.
// - Nothing at all while the agent is blind (ConditionVerdict::blind).
// - A change of status or reason at most once per `min_interval` (flapping);
//   the same condition again every `heartbeat`.
#include <optional>

#include "common/clock.h"
#include "diagnoser/report.h"

namespace plegscope {

struct ConditionPolicyOptions {
  Duration hold = std::chrono::seconds(30);
  Duration clear_after = std::chrono::minutes(2);
  Duration min_interval = std::chrono::seconds(30);
  Duration heartbeat = std::chrono::minutes(5);
};

// What the diagnosis says, reduced to what the condition needs.
struct ConditionVerdict {
  Status status = Status::kHealthy;
  std::optional<CauseId> top;  // the first cause of the report
  Severity top_severity = Severity::kInfo;
  // A relist has succeeded, or a cause is already critical (a call hung past
  // the hang threshold): before either, the kubelet's rule says "pleg has
  // yet to be successful" of an agent that has only just started, which is
  // no verdict on the node. Nothing is written without one.
  bool has_verdict = false;
  Advice top_advice = Advice::kNone;  // what the first cause asks of the operator
  // The agent cannot see the runtime for a reason of its own (Report::blind):
  // whatever the rest says, it is no verdict on the node. Nothing is
  // written, neither True (a remediator would act on a healthy node) nor
  // False (the agent does not know), and the hold and clear timers restart
  // once it sees again.
  bool blind = false;
};

// Why a write is due; Events follow the first three.
enum class ConditionChange {
  kUnhealthy,     // False (or never written) -> True
  kRecovered,     // True -> False
  kCauseChanged,  // True, another reason
  kFirstHealthy,  // never written -> False: the first verdict, no Event
  kHeartbeat,     // the same again
};

struct ConditionWrite {
  bool problem = false;
  std::optional<CauseId> cause;  // nullopt with problem false: PLEGHealthy
  ConditionChange change = ConditionChange::kHeartbeat;
};

// Not thread-safe: one writer thread owns it.
class ConditionPolicy {
 public:
  explicit ConditionPolicy(ConditionPolicyOptions options) : options_(options) {}

  // The write due now, if any. Until confirm() the same write stays due, so
  // a failed write is tried again at the next observe.
  std::optional<ConditionWrite> observe(const ConditionVerdict& verdict, MonoTime now);
  // The write went through at `now`.
  void confirm(const ConditionWrite& write, MonoTime now);

  // At risk with a critical top cause for `hold` as of the last observe: True
  // is wanted (whether or not it is due yet, or written).
  bool held(MonoTime now) const { return critical_since_ && now - *critical_since_ >= options_.hold; }

  // What was last confirmed; nullopt before the first write.
  std::optional<ConditionWrite> written() const { return written_; }

 private:
  std::optional<ConditionWrite> wanted(const ConditionVerdict& verdict, MonoTime now) const;

  const ConditionPolicyOptions options_;
  std::optional<MonoTime> critical_since_;  // at risk with a critical top cause, since
  std::optional<MonoTime> healthy_since_;   // healthy verdicts without a break, since
  std::optional<ConditionWrite> written_;
  std::optional<MonoTime> last_write_;   // any confirmed write
  std::optional<MonoTime> last_change_;  // a confirmed change of status or reason
};

// "RuntimeHung" from runtime_hung; "PLEGHealthy" for nullopt.
std::string condition_reason(std::optional<CauseId> cause);

// The advice asks something of the node (restart its kubelet or runtime, fix
// its storage, reboot or replace it), not of one pod (fix-pod) and not
// nothing: what a remediator that reboots or replaces nodes may act on.
bool node_level(Advice advice);

// The verdict as plegscope.io/NodeRepairAdvised sees it, for a
// ConditionPolicy of its own whose `hold` is the repair window: a node-level
// top cause is "at risk, critical" (True once held past the window, across
// changes between node-level causes); anything else is "healthy" (False
// after clear_after), a pod-local cause on an unhealthy node included.
ConditionVerdict repair_verdict(const ConditionVerdict& verdict);

}  // namespace plegscope
