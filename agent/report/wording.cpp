#include "report/wording.h"

#include <cctype>
#include <map>

#include "cri/operation_names.h"
#include "report/lag_text.h"
#include "report/beside.h"
#include "report/condition_words.h"
#include "report/remedy.h"

namespace plegscope {
namespace {

// A cause named after the rules from where a late relist's time goes
// (interactions.h): the same words whichever cause it names.
std::optional<CauseWords> attributed_words(const Finding& f) {
  const RelistAttribution& a = f.attribution;
  CauseWords w;
  std::string where;
  switch (f.form) {
    case Form::kNoRelistYet:
      if (f.seconds > 0) {
        w.reason = "the first relist has run for " + text::elapsed(f.seconds) + " and not finished";
        const std::optional<double> late = f.evidence.back().threshold;
        w.action = "wait for it; if it runs past " + text::elapsed(late.value_or(a.period_seconds)) +
                   ", check that the runtime answers on its socket";
      } else {
        w.reason = "the runtime has not answered a relist yet";
        w.action = "check that the runtime is up and answers on its socket";
      }
      w.summary = "No relist has succeeded yet: " + w.reason + ".";
      return w;
    case Form::kLateInLists:
      where = text::fmt("%.0f", a.share * 100) + "% of it in the two list calls (" + text::elapsed(a.list_seconds) +
              " for " + std::to_string(a.objects) + " objects)";
      w.action = "find what slows the runtime's list calls";
      break;
    case Form::kLateInInspection:
      where = text::fmt("%.0f", a.share * 100) + "% of it in per-pod inspection (" +
              text::fmt("%.0f", a.pods_per_relist) + " pods changed per relist, status calls " +
              text::elapsed(a.status_call_seconds) + " each)";
      w.action = "find what makes per-pod inspection slow";
      break;
    default: return std::nullopt;
  }
  w.reason = "relists take " + text::elapsed(f.seconds) + ", " + text::fmt("%.0f", f.seconds / a.period_seconds) +
             " times the " + text::elapsed(a.period_seconds) + " period, " + where;
  w.summary = "Relists are late: " + w.reason + ".";
  return w;
}

// What interactions.h decided about a finding and the others.
std::string relation_words(const Relation& r) {
  const std::string first = r.causes.empty() ? "" : cause_name(r.causes.front());
  switch (r.kind) {
    case Relation::Kind::kPressureMayExplain: return " Node pressure may explain it (see " + first + ").";
    case Relation::Kind::kLikelyRootOf:
      return " A starved node makes every call slow: this is the likely root of " + first +
             (r.causes.size() > 1 ? std::string(" and ") + cause_name(r.causes.back()) : "") + ".";
    case Relation::Kind::kMaySlow: return " It may be slowing the runtime (" + first + ").";
    case Relation::Kind::kClearsWith:
      return " No status call failed: the inspections fail in their list calls, as the relists do (see " + first +
             "), so this backlog clears when the runtime answers again.";
    case Relation::Kind::kExplainedBy:
      if (!r.causes.empty() && r.causes.front() == CauseId::kContainerLockStall)
        return " Another client's call inside the runtime holds the lock these calls wait for (see " + first + ").";
      if (!r.causes.empty() && r.causes.front() == CauseId::kCniSlow)
        return " The network plugin holds the sandbox's lock these calls wait for (see " + first + ").";
      return " A pod's runtime helper is stuck in the kernel (see " + first +
             "): that pod, not the runtime, holds the call.";
    case Relation::Kind::kExplains: return " This is what holds " + first + ".";
    case Relation::Kind::kListsWaitOn: return " This is what holds " + first + ".";
    case Relation::Kind::kBehind:
      return " The slow disk is behind " + first +
             (r.causes.size() > 1 ? std::string(" and ") + cause_name(r.causes.back()) : "") + ".";
  }
  return "";
}

// Event lag, when it is the harm users see: one sentence, measured.
std::string lag_sentence(const Report& r) {
  auto harm = lag_harm(r);
  if (!harm) return "";
  (*harm)[0] = static_cast<char>(std::toupper(static_cast<unsigned char>((*harm)[0])));
  return " " + *harm + ".";
}

std::string summary_of(const Report& r) {
  // Blind: say so first, with the agent's fix, and judge nothing of the node.
  if (r.blind)
    return "plegscope is blind: " + blind_why(r.blind->reason, r.blind->endpoint) + ". The node is not judged " +
           "and nothing is paged or written to the Node until plegscope can see the runtime; " + r.blind->fix + ".";
  if (r.status == Status::kHealthy) {
    std::string lag = lag_sentence(r);
    return "PLEG is healthy: relists take " + text::elapsed(r.relist.duration_p50_seconds) + " (p99 " +
           text::elapsed(r.relist.duration_p99_seconds) + ") against a " +
           text::elapsed(r.relist.threshold_seconds) + " threshold" +
           (lag.empty() && r.causes.empty() ? "; nothing to do." : "." + lag) +
           (r.causes.empty() ? "" : " Worth knowing: " + r.causes.front().reason + ".");
  }
  // The kubelet's other path to NotReady: PLEG is fine, the runtime's Status
  // is not; saying "PLEG is at risk" would send the reader the wrong way.
  if (r.healthy && !r.causes.empty()) {
    const CauseId top = r.causes.front().id;
    if (top == CauseId::kRuntimeStatusHung || top == CauseId::kRuntimeNotReady ||
        top == CauseId::kRuntimeNetworkNotReady)
      return "PLEG is healthy, but the kubelet's check of the runtime's Status is not. " + r.causes.front().summary +
             " First: " + r.causes.front().action + "." + lag_sentence(r);
  }
  std::string state = r.status == Status::kUnhealthy ? "not healthy" : "at risk";
  if (r.status == Status::kAtRisk && r.seconds_to_unhealthy)
    state += " (unhealthy in about " + text::elapsed(*r.seconds_to_unhealthy) + ")";
  std::string out = "PLEG is " + state;
  if (!r.causes.empty()) out += " because " + r.causes.front().reason + ": " + r.causes.front().action;
  out += ".";
  // Words are the kubelet's only where they were read from it (its Node's
  // Ready message); otherwise they are the kubelet's rule applied by plegscope.
  if (r.status == Status::kUnhealthy) {
    if (r.kubelet.ready_message && !r.kubelet.ready_message->empty())
      out += " The kubelet's Ready condition says: " + *r.kubelet.ready_message + ".";
    else
      out += " By the kubelet's rule (plegscope's reckoning; the kubelet's own words were not read): " +
             r.health_message + ".";
  }
  if (const auto& late = r.relist.events_late_by_seconds) {
    const double period = r.relist.period_seconds;
    out += " Relists take " + text::elapsed(*late) + " (" + text::fmt("%.0f", *late / period) + " times the " +
           text::elapsed(period) + " period), so the kubelet learns of container changes up to " +
           text::elapsed(*late) + " late.";
  }
  out += lag_sentence(r);
  return out;
}

}  // namespace

const CauseWording& cause_wording(CauseId id) {
  switch (id) {
#define PLEGSCOPE_CAUSE_WORDING_ROW(id, name) \
  case CauseId::id:                           \
    return name##_wording;
    PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_WORDING_ROW)
#undef PLEGSCOPE_CAUSE_WORDING_ROW
  }
  return cause_wording(kAllCauses[0]);
}

const CauseText& cause_text(CauseId id) { return cause_wording(id).text; }

CauseText cause_text(CauseId id, const RuntimeModel& runtime) {
  const CauseWording& wording = cause_wording(id);
  CauseText text = wording.text;
  if (!wording.text_on) return text;
  const RuntimeText own = wording.text_on(runtime);
  if (own.confirm) text.confirm = own.confirm;
  if (own.fix) text.fix = own.fix;
  if (own.never) text.never = own.never;
  return text;
}

CauseWords words(const Finding& f) { return words(f, RuntimeModel{}); }

CauseWords words(const Finding& f, const RuntimeModel& runtime) {
  std::optional<CauseWords> attributed = attributed_words(f);
  CauseWords w = attributed ? *attributed : cause_wording(f.id).words(f, runtime);
  for (const Relation& r : f.relations) w.summary += relation_words(r);
  return w;
}

const char* helper_name(const RuntimeModel& runtime) {
  return runtime.family == RuntimeFamily::kCrio ? "conmon" : "shim";
}

std::string restart_words(const RuntimeModel& runtime) {
  if (runtime.family != RuntimeFamily::kCrio) return ", then restart it";
  return runtime.watchdog_restarts ? " and look at conmon: CRI-O's watchdog will restart it"
                                   : " and look at conmon, then restart CRI-O (its unit has no watchdog before 1.32)";
}

std::string hung_runtime_words(const RuntimeModel& runtime) {
  return std::string(runtime.family == RuntimeFamily::kCrio ? "CRI-O" : "the runtime") +
         " is hung; capture its goroutine dump" + restart_words(runtime);
}

bool needs_words(const Report& report) {
  if (report.summary.empty()) return true;
  if (report.blind && report.blind->fix.empty()) return true;
  if (beside_needs_words(report)) return true;
  if (report.node_condition.outcome && !report.node_condition.error) return true;
  for (const Cause& c : report.causes)
    if (c.summary.empty()) return true;
  return false;
}

void word(Report& report) {
  const RuntimeModel model = runtime_model(report.runtime.name, report.runtime.version, report.runtime.endpoint);
  for (Cause& c : report.causes) {
    if (!c.summary.empty()) continue;
    CauseWords w = words(c, model);
    c.reason = std::move(w.reason);
    c.action = std::move(w.action);
    c.summary = std::move(w.summary);
    if (c.remedy.empty()) c.remedy = remedy(c.id, report);
  }
  if (report.blind && report.blind->fix.empty()) report.blind->fix = blind_fix(report.blind->reason);
  if (report.summary.empty()) report.summary = summary_of(report);
  word_beside(report);
  if (report.node_condition.outcome && !report.node_condition.error)
    report.node_condition.error = node_condition_error_words(*report.node_condition.outcome);
}

Report worded(Report report) {
  word(report);
  return report;
}

std::string cri_method(const std::string& op) {
  static const std::map<std::string, std::string> names = {
      {op::kVersion, "Version"},
      {op::kStatus, "Status"},
      {op::kListPodSandbox, "ListPodSandbox"},
      {op::kListContainers, "ListContainers"},
      {op::kPodSandboxStatus, "PodSandboxStatus"},
      {op::kContainerStatus, "ContainerStatus"},
      {op::kGetContainerEvents, "GetContainerEvents"},
      {op::kStreamPodSandboxes, "StreamPodSandboxes"},
      {op::kStreamContainers, "StreamContainers"}};
  auto it = names.find(op);
  return it == names.end() ? op : it->second;
}

}  // namespace plegscope
