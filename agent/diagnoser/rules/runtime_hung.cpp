// runtime_hung: a CRI call has been in flight longer than --hang-threshold,
// or list calls already ran into their deadline.
#include <algorithm>

#include "cri/operation_names.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_hung.h"

namespace plegscope {
namespace {

// The pods of the per-pod calls in flight past the hang threshold, and
// whether a call that reaches no pod's shim hangs too. A list filtered by a
// pod's uid (one pod's inspection, or the kubelet's relist of that one pod)
// reads the runtime's own store as the full list does: the pod is named, but
// the hang is the runtime's, not the pod's.
std::vector<PodRef> hung_pods(const Context& c, bool& runtime_wide_hung) {
  runtime_wide_hung = false;
  for (const auto& [name, st] : c.s.operations) {
    if (name == op::kGetContainerEvents || name == op::kStatus) continue;
    for (const auto& call : st.in_flight_calls)
      if (call.seconds > c.t.hang_seconds && (call.target.empty() || is_list_op(name))) runtime_wide_hung = true;
  }
  std::vector<PodRef> pods;
  for (const auto& pc : c.s.pod_calls) {
    if (!pc.in_flight || pc.seconds <= c.t.hang_seconds) continue;
    bool seen = false;
    for (const auto& p : pods) seen = seen || (p.uid == pc.pod.uid && p.sandbox_id == pc.pod.sandbox_id);
    if (!seen) pods.push_back(pc.pod);
  }
  return pods;
}

// The 1.36+ kubelet relists one pod on demand (generic.go relistPod: the
// pod's lists filtered by its uid) on the worker and under the lock of its
// global relist, so while that pod's list hangs no global relist starts. The
// agent copies that model: its relist in flight being that pod's relist, on a
// list filtered by that pod's uid past the hang threshold, is the measurement.
// Said only where the model in use has those relists; up to 1.35 a filtered
// list is the inspection inside a global relist, said as a plain hung call.
void mark_pod_relist(const Context& c, Finding& f) {
  RuntimeHungDetails& d = f.details<RuntimeHungDetails>();
  const Snapshot& s = c.s;
  if (!s.kubelet.view.model.behaviour.pod_relists || !c.in_progress || !c.in_progress->pod) return;
  const NamedPod& pod = *c.in_progress->pod;
  // The oldest hung call is a list filtered by that pod's uid.
  auto it = s.operations.find(c.hung_op);
  if (!is_list_op(c.hung_op) || it == s.operations.end()) return;
  const CallTarget target{CallTarget::Kind::kPodUid, pod.uid};
  if (std::none_of(it->second.in_flight_calls.begin(), it->second.in_flight_calls.end(),
                   [&](const InFlightCall& call) { return call.target == target && call.seconds > c.t.hang_seconds; }))
    return;
  d.pod_relist = true;
  // That pod named first.
  auto same = [&](const PodRef& p) { return p.uid == pod.uid; };
  auto named = std::find_if(f.pods.begin(), f.pods.end(), same);
  PodRef ref = named != f.pods.end() ? *named : PodRef{pod.namespace_, pod.name, pod.uid, "", ""};
  if (named != f.pods.end()) f.pods.erase(named);
  f.pods.insert(f.pods.begin(), ref);
  f.evidence.push_back({"pod_relist_in_progress_seconds", to_seconds(c.in_progress->duration), c.t.hang_seconds});
  // The kubelet's own relists, where read: flat for as long, they are held the same way.
  const auto& flat = s.kubelet.view.seconds_since_relist_advanced;
  if (flat && *flat > c.t.hang_seconds && s.kubelet.view.samples > 1) {
    d.kubelet_flat_seconds = *flat;
    f.evidence.push_back({"kubelet_relist_flat_seconds", *flat, c.t.hang_seconds});
  }
}

}  // namespace

std::optional<Finding> judge_runtime_hung(const Context& c) {
  const Snapshot& s = c.s;
  const double hang = c.t.hang_seconds;
  if (!c.hung()) {
    int deadline = window_errors(c, GrpcCode::kDeadlineExceeded);
    if (deadline == 0) return std::nullopt;
    Finding f;
    RuntimeHungDetails d;  // filled beside the form, set once the form is chosen
    if (failures_interleaved(c, GrpcCode::kDeadlineExceeded)) {
      // Good relists between the failed ones: the runtime stalls on and
      // off (a slow shim, a lock held for a while), it has not stopped.
      double share = static_cast<double>(deadline) / std::max(1, window_relist_count(c));
      f = make_finding(CauseId::kRuntimeHung, Severity::kWarning, 0.4 + 0.25 * share, Form::kStalling);
      d.window_seconds = to_seconds(s.now - c.window_start);
    } else {
      // A hang that already reached --runtime-request-timeout: between two
      // retries nothing is in flight past the threshold, yet it is the same
      // hang, ranked as high as while a call hangs, so the top cause does
      // not alternate with runtime_slow across the retries.
      f = make_finding(CauseId::kRuntimeHung, Severity::kCritical, 0.85 + 0.02 * std::min(deadline, 5),
                       Form::kDeadlines);
    }
    d.relists = deadline;
    f.details<RuntimeHungDetails>() = std::move(d);
    f.evidence.push_back({"relist_errors_in_window{DEADLINE_EXCEEDED}", static_cast<double>(deadline), 0});
    return f;
  }
  double over = (c.hung_seconds - hang) / (2 * hang);
  Finding f = make_finding(CauseId::kRuntimeHung, Severity::kCritical, 0.8 + 0.15 * std::clamp(over, 0.0, 1.0),
                           Form::kCallHung);
  RuntimeHungDetails& d = f.details<RuntimeHungDetails>();
  const auto& st = s.operations.at(c.hung_op);
  f.op = c.hung_op;
  f.seconds = c.hung_seconds;
  d.threshold_seconds = hang;
  // The relists before this call that ended at their deadline: the call is
  // their retry, the same hang.
  if (!failures_interleaved(c, GrpcCode::kDeadlineExceeded))
    d.relists = trailing_errors(c, GrpcCode::kDeadlineExceeded);
  // Lists answer quickly while one pod's calls hang: a stuck pod
  // (its shim, its storage), not a hung runtime.
  bool runtime_wide_hung = false;
  f.pods = hung_pods(c, runtime_wide_hung);
  if (!f.pods.empty() && !runtime_wide_hung && c.lists.samples > 0 && c.lists.typical < c.t.slow_list_seconds) {
    f.form = Form::kStuckPod;
    d.pod_count = static_cast<int>(f.pods.size());
    d.list_seconds = c.lists.typical;
    f.evidence.push_back({"list_typical_seconds{" + c.lists.op + "}", c.lists.typical, c.t.slow_list_seconds});
  }
  f.evidence.push_back({"oldest_in_flight_seconds{" + c.hung_op + "}", c.hung_seconds, hang});
  if (f.form == Form::kCallHung) mark_pod_relist(c, f);
  // The runtime's own metrics page failing meanwhile is the same hang seen
  // from another door, not a reason to doubt it.
  d.runtime_metrics_failed = runtime_metrics_failed(c);
  if (d.runtime_metrics_failed) f.evidence.push_back({"runtime_metrics_up", 0, 1});
  // A scan that saw no pod's helper in D: nothing below holds the runtime.
  if (s.host && s.host->processes.unreadable.empty())
    d.no_helper_in_d = std::none_of(s.host->processes.blocked.begin(), s.host->processes.blocked.end(),
                                    [](const host::BlockedTask& b) { return b.role != "daemon"; });
  f.evidence.push_back({"in_flight{" + c.hung_op + "}", static_cast<double>(st.in_flight), {}});
  if (c.in_progress)
    f.evidence.push_back({"relist_in_progress_seconds", to_seconds(c.in_progress->duration),
                          to_seconds(s.relist_threshold)});
  if (s.last_seen)
    f.evidence.push_back({"seconds_since_last_seen", to_seconds(s.now - *s.last_seen),
                          to_seconds(s.relist_threshold)});
  return f;
}

}  // namespace plegscope
