// pid_exhaustion: a PID limit nearly reached: the runtime's pids cgroup (a
// systemd TasksMax), kubepods', or the node's pid_max / threads-max. New
// shims, runc and exec calls then fail to fork while the node stays Ready.
#include "diagnoser/cgroup_stalls.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/pid_exhaustion.h"

namespace plegscope {

std::optional<Finding> judge_pid_exhaustion(const Context& c) {
  if (!c.s.host) return std::nullopt;
  const host::PidLimit* worst = nullptr;
  for (const auto& l : c.s.host->pid_limits)
    if (l.unreadable.empty() && l.ratio && l.max && *l.ratio >= c.t.pid_limit_usage &&
        (!worst || *l.ratio > *worst->ratio))
      worst = &l;
  if (!worst) return std::nullopt;
  const double ratio = *worst->ratio;
  Finding f = make_finding(CauseId::kPidExhaustion, ratio >= 0.98 ? Severity::kCritical : Severity::kWarning,
                           0.6 + (ratio >= 0.95 ? 0.15 : 0) + (ratio >= 0.98 ? 0.1 : 0));
  PidExhaustionDetails& d = f.details<PidExhaustionDetails>();
  d.limit_scope = worst->scope;
  d.limit_cgroup = worst->limited_by.empty() ? worst->cgroup : worst->limited_by;
  d.current = worst->current;
  d.maximum = *worst->max;
  d.share = ratio;
  f.strong = ratio >= 0.97;
  for (const auto& l : c.s.host->pid_limits)
    if (l.unreadable.empty() && l.ratio && *l.ratio >= c.t.pid_limit_usage)
      f.evidence.push_back({"pids_usage_ratio{" + l.scope + "}", *l.ratio, c.t.pid_limit_usage});
  add_cgroup_forks_refused(c, f);
  return f;
}

}  // namespace plegscope
