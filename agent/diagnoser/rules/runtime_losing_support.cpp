// runtime_losing_support: the runtime answers CRI RuntimeConfig with
// UNIMPLEMENTED. The kubelet asks it once at start for the cgroup driver;
// without an answer it falls back to its own cgroupDriver, logs "CRI
// implementation should be updated to support RuntimeConfig" and sets
// kubelet_cri_losing_support{version} to the release it says will stop
// falling back. Nothing fails today, so the cause is info: it names the
// runtime, what it lacks, the release named, and an upgrade to plan, and
// never makes a node at risk or explains a PLEG.
#include "cri/operation_names.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/runtime_losing_support.h"

namespace plegscope {
namespace {

// What each kubelet release writes in kubelet_cri_losing_support's version
// label (cmd/kubelet/app/server.go, getCgroupDriverFromCRI): 1.34 and 1.35
// "1.36.0", 1.36 "1.37.0", 1.37 "1.38.0". The date has moved with each
// release so far; a kubelet newer than the table is taken to name its next
// minor, as the last three did.
std::string announced_by(const std::optional<KubeletVersion>& kubelet) {
  constexpr int kNewestKnownMinor = 37;
  int minor = kubelet && kubelet->major == 1 ? kubelet->minor : kNewestKnownMinor;
  if (minor <= 35) return "1.36.0";
  return "1." + std::to_string(minor + 1) + ".0";
}

}  // namespace

std::optional<Finding> judge_runtime_losing_support(const Context& c) {
  const bool measured = c.s.runtime_config.answer == RuntimeConfigAnswer::kUnimplemented;
  const std::optional<std::string>& kubelet_series = c.s.kubelet.view.cri_losing_support;
  // The agent's own call is the newer word on the runtime: a kubelet's
  // series lives until that kubelet restarts, so one that began before the
  // runtime was upgraded is stale once the runtime answers.
  if (c.s.runtime_config.answer == RuntimeConfigAnswer::kAnswered) return std::nullopt;
  if (!measured && !kubelet_series) return std::nullopt;
  // Below the 0.5 that the fleet-wide alert (mixin fleetWideCauseMinConfidence)
  // counts: a cluster still on containerd 1.x everywhere has an upgrade to
  // plan, not a regression to page on.
  Finding f = make_finding(CauseId::kRuntimeLosingSupport, Severity::kInfo, measured && kubelet_series ? 0.4 : 0.3,
                           measured ? Form::kFound : Form::kFromKubelet);
  RuntimeLosingSupportDetails& d = f.details<RuntimeLosingSupportDetails>();
  f.op = op::kRuntimeConfig;
  d.runtime_name = c.s.runtime_name;
  d.runtime_version = c.s.runtime_version;
  d.kubelet_says = kubelet_series.has_value();
  const auto& kubelet = c.s.kubelet.view.version;
  if (kubelet) d.kubelet_version = kubelet->git_version;
  d.losing_support_from = kubelet_series ? *kubelet_series : announced_by(kubelet);
  if (measured) f.evidence.push_back({"runtime_config_unimplemented", 1, 0});
  if (kubelet_series) f.evidence.push_back({"kubelet_cri_losing_support{" + *kubelet_series + "}", 1, 0});
  return f;
}

}  // namespace plegscope
