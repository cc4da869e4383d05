// runtime_status_hung: the runtime's CRI Status has had no good answer for
// the hang threshold (a call in flight, or calls ending in errors), the way
// the kubelet calls it: 30 s of that and the kubelet says "container runtime
// is down". Named apart from runtime_hung because the lists may answer at
// the same time (containerd's Status waiting on a CNI lock or a deadlocked
// CNI library), where the PLEG sees nothing wrong.
#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "cri/operation_names.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_status_hung.h"

namespace plegscope {
namespace {

// What containerd starts and waits on beside the CNI plugins, which no
// Status waits on.
bool unpacks_or_mounts(const std::string& comm) {
  return comm == "unpigz" || comm == "igzip" || comm == "mount" || comm == "umount";
}

// The runtime's child that has run since before the pending Status call
// began, longest first: containerd 2.x runs every CNI network's STATUS
// inside the CRI Status, with no deadline of its own, so a plugin that does
// not return holds the call as long as the plugin runs. Each later call
// starts its own, so the oldest is the one the first call waits on. Ages are
// the scan's, which may be a scan period old: each child's start is placed
// at the scan's time less its age and compared with the call's start.
// Returns the child and its age now.
std::optional<std::pair<const host::DaemonChild*, double>> status_waits_on(const Context& c,
                                                                           double in_flight_seconds) {
  if (!c.s.host) return std::nullopt;
  const double scan_age =
      c.s.host_scanned_at ? std::max(0.0, std::chrono::duration<double>(c.s.now - *c.s.host_scanned_at).count()) : 0;
  constexpr double kSpawnSlack = 2.0;  // the runtime starts the plugin just after the call arrives
  for (const host::DaemonChild& child : c.s.host->processes.daemon_children) {
    if (!child.age_seconds || unpacks_or_mounts(child.comm)) continue;
    const double age_now = *child.age_seconds + scan_age;
    if (age_now + kSpawnSlack >= in_flight_seconds) return std::make_pair(&child, age_now);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Finding> judge_runtime_status_hung(const Context& c) {
  const RuntimeStatusEvidence& e = c.s.runtime_status;
  if (!e.enabled || !e.started) return std::nullopt;
  // A Status that answers with RuntimeReady false is runtime_not_ready; a
  // socket that refuses is runtime_unavailable.
  // A healthy sync is up to a period old (the next call starts 5 s after the
  // last returned): what counts is the call in flight past the hang
  // threshold, or failures that left no sync for a period beyond it.
  const bool pending = e.in_flight_seconds.has_value();
  const bool failing = e.consecutive_failures > 0 && e.last_code != GrpcCode::kUnavailable;
  const bool call_hung = pending && *e.in_flight_seconds >= c.t.hang_seconds;
  const bool failed_long = failing && e.seconds_since_success >= e.period_seconds + c.t.hang_seconds;
  if (!call_hung && !failed_long && !(e.runtime_down && (pending || failing))) return std::nullopt;

  const RuntimeWideHang lists = runtime_wide_hang(c);
  const bool lists_answer = !lists.hung && c.last_ok != nullptr && c.lists.typical < c.t.slow_list_seconds;
  const bool deadline = pending || e.last_code == GrpcCode::kDeadlineExceeded;
  Form form = !deadline ? Form::kStatusFailing : lists_answer ? Form::kStatusWhileListsAnswer : Form::kStatusWithLists;
  // With the lists hanging too, runtime_hung is the cause and this is how
  // the kubelet will word it; alone, it is the node's whole story.
  double confidence = lists_answer ? 0.86 : 0.7;
  if (e.runtime_down) confidence += 0.08;
  Finding f = make_finding(CauseId::kRuntimeStatusHung, e.runtime_down ? Severity::kCritical : Severity::kWarning,
                           confidence, form);
  RuntimeStatusHungDetails& d = f.details<RuntimeStatusHungDetails>();
  f.op = op::kStatus;
  f.seconds = e.seconds_since_success;
  d.threshold_seconds = e.down_threshold_seconds;
  d.status_down_in_seconds = e.runtime_down ? 0.0 : std::max(0.0, e.down_threshold_seconds - e.seconds_since_success);
  d.calls = e.consecutive_failures;
  d.lists_answer = lists_answer;
  d.list_seconds = c.lists.typical;
  if (c.s.kubelet.ready_message)
    d.ready_message_agrees = c.s.kubelet.ready_says.status_sync;
  f.evidence.push_back({"runtime_status_seconds_since_success", e.seconds_since_success, e.down_threshold_seconds});
  if (pending) f.evidence.push_back({"oldest_in_flight_seconds{status}", *e.in_flight_seconds, c.t.hang_seconds});
  if (const auto waits_on = pending ? status_waits_on(c, *e.in_flight_seconds) : std::nullopt) {
    const auto& [child, seconds] = *waits_on;
    Finding::HostProcess p;
    p.pid = child->pid;
    p.comm = child->comm;
    p.seconds = seconds;
    f.processes.push_back(std::move(p));
    d.waits_on_daemon = child->daemon;
    f.evidence.push_back({"runtime_child_running_seconds{" + child->comm + "}", seconds, *e.in_flight_seconds});
  }
  if (e.consecutive_failures > 0)
    f.evidence.push_back({"status_failures_in_a_row{" + std::string(grpc_code_name(e.last_code)) + "}",
                          static_cast<double>(e.consecutive_failures), 0});
  if (c.lists.samples > 0)
    f.evidence.push_back({"list_typical_seconds{" + c.lists.op + "}", c.lists.typical, c.t.slow_list_seconds});
  return f;
}

}  // namespace plegscope
