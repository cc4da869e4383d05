// reinspect_backlog: pods keep failing inspection and are retried every relist.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/reinspect_backlog.h"

namespace plegscope {

std::optional<Finding> judge_reinspect_backlog(const Context& c) {
  const Snapshot& s = c.s;
  if (s.pods_to_reinspect == 0) return std::nullopt;
  int run = 0, first = 0, last = 0, failures = 0;
  for (auto it = s.timeline.rbegin(); it != s.timeline.rend(); ++it) {
    if (it->error_code) continue;  // a failed relist reinspects nothing: neither breaks nor counts
    if (it->pods_to_reinspect == 0) break;
    if (run == 0) {
      last = it->pods_to_reinspect;
      failures = it->inspection_failures;
    }
    first = it->pods_to_reinspect;
    ++run;
  }
  if (run < c.t.reinspect_relists) return std::nullopt;
  double confidence = 0.6 + (last > first ? 0.1 : 0) + (run >= 10 ? 0.1 : 0) + (failures > 0 ? 0.05 : 0);
  Finding f = make_finding(CauseId::kReinspectBacklog, Severity::kWarning, confidence);
  ReinspectBacklogDetails& d = f.details<ReinspectBacklogDetails>();
  d.pod_count = static_cast<int>(s.pods_to_reinspect);
  d.relists = run;
  f.evidence.push_back({"pods_to_reinspect", static_cast<double>(s.pods_to_reinspect), 0});
  f.evidence.push_back({"relists_with_backlog_in_a_row", static_cast<double>(run),
                        static_cast<double>(c.t.reinspect_relists)});
  f.evidence.push_back({"inspection_failures_last_relist", static_cast<double>(failures), {}});
  for (const auto& [name, st] : s.operations)
    if (is_status_op(name))
      for (const auto& [code, n] : st.errors_by_code)
        f.evidence.push_back({"errors_total{" + name + "," + grpc_code_name(code) + "}", static_cast<double>(n), {}});
  return f;
}

}  // namespace plegscope
