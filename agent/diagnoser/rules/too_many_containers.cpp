// too_many_containers: relist cost is dominated by the number of objects.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/too_many_containers.h"

namespace plegscope {

std::optional<Finding> judge_too_many_containers(const Context& c) {
  if (c.objects < c.t.many_objects) return std::nullopt;
  const RelistRecord* r = c.in_progress && c.in_progress->lists_done == 2 ? c.in_progress : c.last_ok;
  const double exited = r && r->containers > 0 ? static_cast<double>(r->exited_containers) / r->containers : 0;
  // A large node whose lists are still fast is healthy: the count is a cause
  // only when exited containers pile up or the lists it makes are slow.
  const bool piling_up = exited >= c.t.exited_share;
  const bool lists_slow = c.list_seconds >= c.t.slow_list_seconds;
  if (!piling_up && !lists_slow) return std::nullopt;
  double confidence = 0.55 + (piling_up ? 0.15 : 0) + (lists_slow ? 0.15 : 0) +
                      (c.objects >= 2 * c.t.many_objects ? 0.1 : 0);
  Finding f = make_finding(CauseId::kTooManyContainers, Severity::kWarning, confidence);
  TooManyContainersDetails& d = f.details<TooManyContainersDetails>();
  d.objects = c.objects;
  d.exited = r ? r->exited_containers : 0;
  d.list_seconds = c.list_seconds;
  d.mostly_exited = piling_up;
  f.evidence.push_back({"sandboxes_and_containers", static_cast<double>(c.objects),
                        static_cast<double>(c.t.many_objects)});
  f.evidence.push_back({"exited_share", exited, c.t.exited_share});
  f.evidence.push_back({"relist_list_seconds_p50", c.list_seconds, c.t.slow_list_seconds});
  return f;
}

}  // namespace plegscope
