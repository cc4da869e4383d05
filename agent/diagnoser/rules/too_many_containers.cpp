// too_many_containers: relist cost is dominated by the number of objects.
#include <algorithm>

#include "diagnoser/prose.h"
#include "diagnoser/rule.h"

namespace plegscope {

std::optional<Cause> judge_too_many_containers(const Context& c) {
  if (c.objects < c.t.many_objects) return std::nullopt;
  const RelistRecord* r = c.in_progress && c.in_progress->lists_done == 2 ? c.in_progress : c.last_ok;
  const double exited = r && r->containers > 0 ? static_cast<double>(r->exited_containers) / r->containers : 0;
  double confidence = 0.55 + (exited >= c.t.exited_share ? 0.15 : 0) +
                      (c.list_seconds >= c.t.slow_list_seconds ? 0.15 : 0) +
                      (c.objects >= 2 * c.t.many_objects ? 0.1 : 0);
  Cause cause = make_cause(CauseId::kTooManyContainers, Severity::kWarning, confidence);
  cause.reason = "the runtime holds " + std::to_string(c.objects) + " sandboxes and containers (" +
                 std::to_string(r ? r->exited_containers : 0) + " exited) and every relist lists them all (" +
                 text::duration(c.list_seconds) + ")";
  cause.action = "remove exited containers and fix whatever piles them up";
  cause.summary = "Relist cost is dominated by object count: " + cause.reason + ".";
  cause.evidence.push_back({"sandboxes_and_containers", static_cast<double>(c.objects),
                            static_cast<double>(c.t.many_objects)});
  cause.evidence.push_back({"exited_share", exited, c.t.exited_share});
  cause.evidence.push_back({"relist_list_seconds_p50", c.list_seconds, c.t.slow_list_seconds});
  return cause;
}

}  // namespace plegscope
