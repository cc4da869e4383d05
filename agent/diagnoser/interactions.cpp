#include "diagnoser/interactions.h"

#include <algorithm>
#include <cmath>

#include "cri/operation_names.h"
#include "diagnoser/rule.h"

namespace plegscope {
namespace {

Finding* find(std::vector<Finding>& findings, CauseId id) {
  for (auto& f : findings)
    if (f.id == id) return &f;
  return nullptr;
}

// Causes that make a relist long; one of them explains late relists.
bool explains_relist_time(CauseId id) {
  return id != CauseId::kRuntimeUnavailable && id != CauseId::kMessageTooLarge &&
         id != CauseId::kDefunctProcesses && id != CauseId::kPidExhaustion &&  // no relist time
         // The runtime's Status is not the PLEG's call: it takes no relist time.
         id != CauseId::kRuntimeStatusHung && id != CauseId::kRuntimeNotReady &&
         id != CauseId::kRuntimeNetworkNotReady;
}

}  // namespace

void relate_pressure_to_slow_calls(std::vector<Finding>& findings) {
  Finding* pressure = find(findings, CauseId::kNodePressure);
  if (!pressure || pressure->severity == Severity::kInfo) return;
  // Pressure well past its threshold is the likelier root; mild pressure
  // beside a slow runtime is only a suspect.
  const bool strong = pressure->strong;
  double top_symptom = 0;
  std::vector<CauseId> symptoms;
  for (auto& f : findings) {
    if (f.id != CauseId::kRuntimeSlow && f.id != CauseId::kPodStatusSlow) continue;
    symptoms.push_back(f.id);
    f.relations.push_back({Relation::Kind::kPressureMayExplain, {CauseId::kNodePressure}});
    if (strong) f.confidence = std::round(f.confidence * 85) / 100;
    top_symptom = std::max(top_symptom, f.confidence);
  }
  if (symptoms.empty()) return;
  if (strong) pressure->confidence = std::min(0.98, std::max(pressure->confidence, top_symptom + 0.05));
  pressure->relations.push_back({strong ? Relation::Kind::kLikelyRootOf : Relation::Kind::kMaySlow, symptoms});
}

// The causes that name what holds a call past the hang threshold: a
// stopped or deadlocked runtime, a frozen or stuck shim, a lifecycle call
// holding a container's lock, a frozen container, a stalled system bus.
bool names_what_holds_a_call(const Finding& f) {
  switch (f.id) {
    case CauseId::kRuntimeHung:
      return f.severity == Severity::kCritical;
    case CauseId::kShimHung:
    case CauseId::kContainerLockStall:
    case CauseId::kContainerFrozen:
    case CauseId::kSystemdBusStalled:
      return f.severity != Severity::kInfo;
    default:
      return false;
  }
}

void relate_pressure_to_hung_calls(const Context& c, std::vector<Finding>& findings) {
  Finding* pressure = find(findings, CauseId::kNodePressure);
  if (!pressure) return;
  const Finding* hold = nullptr;
  for (const Finding& f : findings)
    if (names_what_holds_a_call(f) && (!hold || f.confidence > hold->confidence)) hold = &f;
  if (!hold) return;
  // Pressure slows a runtime; it does not hold a call past the hang
  // threshold, nor stop a shim or a container, unless the runtime's own
  // threads wait in the kernel (reclaim, IO). Without that, a stopped,
  // frozen or deadlocked runtime or shim on a busy node is the hang, and the
  // pressure only a suspect beside it (chaos campaign, on a loaded node: a
  // frozen shim holding the kubelet's resize ranked below the pressure for
  // its whole window).
  const bool daemon_waits_in_kernel =
      c.s.host && std::any_of(c.s.host->processes.blocked.begin(), c.s.host->processes.blocked.end(),
                              [](const host::BlockedTask& b) { return b.role == "daemon" && b.state == 'D'; });
  if (pressure->strong && daemon_waits_in_kernel) return;
  pressure->confidence = std::min(pressure->confidence, std::round((hold->confidence - 0.05) * 100) / 100);
  pressure->relations.push_back({Relation::Kind::kMaySlow, {hold->id}});
}

void relate_backlog_to_failing_lists(const Context& c, std::vector<Finding>& findings) {
  Finding* backlog = find(findings, CauseId::kReinspectBacklog);
  if (!backlog) return;
  const Finding* runtime = nullptr;
  for (CauseId id : {CauseId::kRuntimeUnavailable, CauseId::kRuntimeHung})
    if (const Finding* found = find(findings, id); found && (!runtime || found->confidence > runtime->confidence))
      runtime = found;
  if (!runtime) return;
  for (const auto& [name, st] : c.s.operations) {
    if (!is_status_op(name)) continue;
    for (const CallSample& sample : st.recent)
      if (sample.end >= c.window_start && sample.code != GrpcCode::kOk) return;  // status calls fail too: its own cause
  }
  backlog->confidence = std::min(backlog->confidence, std::max(0.0, runtime->confidence - 0.05));
  backlog->relations.push_back({Relation::Kind::kClearsWith, {runtime->id}});
}

void relate_lock_stall_to_hung_calls(std::vector<Finding>& findings) {
  Finding* stall = find(findings, CauseId::kContainerLockStall);
  if (!stall) return;
  double top_symptom = 0;
  for (const auto& f : findings)
    if (f.id == CauseId::kRuntimeHung || f.id == CauseId::kRuntimeSlow || f.id == CauseId::kPodStatusSlow)
      top_symptom = std::max(top_symptom, f.confidence);
  if (top_symptom == 0) return;
  stall->confidence = std::min(0.98, std::max(stall->confidence, top_symptom + 0.05));
  for (auto& f : findings) {
    if (f.id != CauseId::kRuntimeHung && f.id != CauseId::kRuntimeSlow && f.id != CauseId::kPodStatusSlow) continue;
    f.confidence = std::min(f.confidence, std::round((stall->confidence - 0.05) * 100) / 100);
    f.relations.push_back({Relation::Kind::kExplainedBy, {CauseId::kContainerLockStall}});
  }
}

void relate_cni_to_sandbox_status(std::vector<Finding>& findings) {
  Finding* cni = find(findings, CauseId::kCniSlow);
  Finding* status = find(findings, CauseId::kPodStatusSlow);
  if (!cni || !status || cni->details<CniSlowDetails>().status_call_seconds <= 0 ||
      status->op != op::kPodSandboxStatus)
    return;
  cni->confidence = std::min(0.98, std::max(cni->confidence, status->confidence + 0.05));
  status->confidence = std::min(status->confidence, std::round((cni->confidence - 0.05) * 100) / 100);
  status->relations.push_back({Relation::Kind::kExplainedBy, {CauseId::kCniSlow}});
}

namespace {

// Both findings name a pod of the same sandbox.
bool share_a_sandbox(const Finding& x, const Finding& y) {
  for (const auto& a : x.pods)
    for (const auto& b : y.pods)
      if (!a.sandbox_id.empty() && a.sandbox_id == b.sandbox_id) return true;
  return false;
}

}  // namespace

void relate_host_to_calls(std::vector<Finding>& findings) {
  Finding* shim = find(findings, CauseId::kShimHung);
  Finding* hung = find(findings, CauseId::kRuntimeHung);
  if (shim && hung && shim->form == Form::kBehindHungLists) {
    // The lists hang because of the stuck shim: it is the root, and a
    // restarted runtime would hang on it again.
    shim->confidence = std::min(0.98, std::max(shim->confidence, hung->confidence + 0.02));
    hung->confidence = std::max(0.0, std::min(hung->confidence, shim->confidence - 0.05));
    hung->relations.push_back({Relation::Kind::kExplainedBy, {CauseId::kShimHung}});
    shim->relations.push_back({Relation::Kind::kListsWaitOn, {CauseId::kRuntimeHung}});
  } else if (shim && hung && hung->form != Form::kStalling && hung->form != Form::kDeadlines) {
    // The hung call is the stuck pod's: the shim is the root.
    if (shim->form == Form::kBehindHungCall || share_a_sandbox(*shim, *hung)) {
      shim->confidence = std::min(0.98, std::max(shim->confidence, hung->confidence + 0.02));
      hung->confidence = std::max(0.0, std::min(hung->confidence, shim->confidence - 0.05));
      hung->relations.push_back({Relation::Kind::kExplainedBy, {CauseId::kShimHung}});
      shim->relations.push_back({Relation::Kind::kExplains, {CauseId::kRuntimeHung}});
    }
  }
  // Where the lists take no container lock, a stuck helper explains its own
  // pod's slow status calls.
  Finding* status = find(findings, CauseId::kPodStatusSlow);
  if (shim && status && shim->form == Form::kBehindSlowStatus) {
    if (share_a_sandbox(*shim, *status)) {
      shim->confidence = std::min(0.98, std::max(shim->confidence, status->confidence + 0.02));
      status->relations.push_back({Relation::Kind::kExplainedBy, {CauseId::kShimHung}});
      shim->relations.push_back({Relation::Kind::kExplains, {CauseId::kPodStatusSlow}});
    }
  }
  auto disk = std::find_if(findings.begin(), findings.end(),
                           [](const Finding& f) { return f.id == CauseId::kRuntimeDiskSlow; });
  if (disk == findings.end()) return;
  std::vector<CauseId> behind;
  for (const auto& f : findings)
    if (f.id == CauseId::kRuntimeSlow || f.id == CauseId::kPodStatusSlow || f.id == CauseId::kShimHung ||
        f.id == CauseId::kRuntimeHung)
      behind.push_back(f.id);
  if (behind.empty()) {
    findings.erase(disk);  // a slow disk under fast calls is no PLEG cause
    return;
  }
  disk->relations.push_back({Relation::Kind::kBehind, behind});
}

void attribute_unexplained(const Context& c, bool needs_cause, std::vector<Finding>& findings) {
  const bool late = c.late();
  if (!late && !needs_cause) return;
  for (const auto& f : findings) {
    // A frozen container no PLEG call waits on takes no relist time and
    // explains no unhealthy PLEG: the relist is still named from its time.
    if (f.id == CauseId::kContainerFrozen && f.severity != Severity::kCritical) continue;
    // Pressure at info measured no slow call or relist with it: it does
    // not explain a relist that is late.
    if (f.id == CauseId::kNodePressure && f.severity == Severity::kInfo) continue;
    // A runtime the next kubelet will refuse costs no relist time today.
    if (f.id == CauseId::kRuntimeLosingSupport) continue;
    // A stalled bus holds container starts, which the relist never calls.
    if (f.id == CauseId::kSystemdBusStalled) continue;
    if (late ? explains_relist_time(f.id) : true) return;
  }

  const double period = c.period_seconds();
  Finding f;
  const bool first_relist_running = !c.last_ok && c.in_progress && !late;
  if (!c.last_ok && ((c.relist_seconds <= 0 && c.lists.samples == 0) || first_relist_running)) {
    // No relist has succeeded: the runtime has not answered a single list,
    // or the first relist runs and is not yet late, so how long it has run
    // is all there is to measure; shares of a relist just begun name nothing.
    f = make_finding(CauseId::kRuntimeUnavailable, Severity::kWarning, 0.4, Form::kNoRelistYet);
    f.evidence.push_back({"successful_relists", 0, 1});
    if (c.in_progress) {
      f.seconds = to_seconds(c.in_progress->duration);
      f.attribution.period_seconds = period;
      f.evidence.push_back({"first_relist_running_seconds", f.seconds, c.t.late_relist_periods * period});
    }
  } else {
    const bool lists = c.list_share >= c.status_share;
    if (lists) {
      f = make_finding(c.objects >= c.t.many_objects / 2 ? CauseId::kTooManyContainers : CauseId::kRuntimeSlow,
                       Severity::kWarning, 0.5, Form::kLateInLists);
      f.attribution.share = c.list_share;
      f.attribution.list_seconds = c.list_seconds;
      f.attribution.objects = c.objects;
    } else {
      const bool slow_calls = c.statuses.typical >= c.t.slow_status_seconds / 10;
      const bool backlog = c.s.pods_to_reinspect > 0 && c.pods_changed < 1;
      f = make_finding(backlog      ? CauseId::kReinspectBacklog
                       : slow_calls ? CauseId::kPodStatusSlow
                                    : CauseId::kEventStorm,
                       Severity::kWarning, 0.5, Form::kLateInInspection);
      f.attribution.share = c.status_share;
      f.attribution.pods_per_relist = c.pods_changed;
      f.attribution.status_call_seconds = c.statuses.typical;
    }
    f.seconds = c.relist_seconds;
    f.attribution.period_seconds = period;
    f.evidence.push_back({"relist_seconds", c.relist_seconds, c.t.late_relist_periods * period});
    f.evidence.push_back({lists ? "list_share_of_relist" : "status_share_of_relist",
                          lists ? c.list_share : c.status_share, 0.5});
  }
  findings.push_back(std::move(f));
}

void rank(std::vector<Finding>& findings, double min_confidence) {
  findings.erase(std::remove_if(findings.begin(), findings.end(),
                                [&](const Finding& f) { return f.confidence < min_confidence; }),
                 findings.end());
  // A report is at risk only for a cause at warning or above, so such a
  // cause comes first: an info finding (pressure while no call is measured
  // slow with it) explains nothing the report warns of and ranks below,
  // however confident its own measurement (chaos campaign, on a saturated
  // node: info node_pressure at 0.45 headed an at-risk report above the
  // runtime_unavailable warning of a runtime just restarted).
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    const bool a_info = a.severity == Severity::kInfo, b_info = b.severity == Severity::kInfo;
    if (a_info != b_info) return b_info;
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return static_cast<int>(a.id) < static_cast<int>(b.id);
  });
}

}  // namespace plegscope
