// defunct_processes: zombies (state Z) beyond a threshold, or growing across
// the scans kept: a parent (often a shim or a container's init) that does
// not reap its children.
#include <algorithm>

#include "diagnoser/rule.h"
#include "diagnoser/rules/defunct_processes.h"

namespace plegscope {

std::optional<Finding> judge_defunct_processes(const Context& c) {
  if (!c.s.host || !c.s.host->processes.unreadable.empty()) return std::nullopt;
  const auto& p = c.s.host->processes;
  const auto& history = c.s.zombie_history;
  // Growing: never fewer from one scan to the next, and zombie_growth more
  // over the scans kept.
  bool growing = history.size() >= 3 && history.back() - history.front() >= c.t.zombie_growth &&
                 std::is_sorted(history.begin(), history.end());
  const bool many = p.zombies >= c.t.zombies;
  if (!many && !growing) return std::nullopt;
  double confidence = 0.45 + (many ? 0.1 : 0) + (growing ? 0.1 : 0) + (p.zombies >= 4 * c.t.zombies ? 0.1 : 0);
  Finding f = make_finding(CauseId::kDefunctProcesses, Severity::kWarning, confidence);
  DefunctProcessesDetails& d = f.details<DefunctProcessesDetails>();
  d.zombies = p.zombies;
  d.objects = growing ? static_cast<int>(history.back() - history.front()) : 0;  // growth over the scans
  for (const auto& z : p.zombie_parents) {
    f.processes.push_back({z.pid, z.comm, "", 0, z.zombies, z.sandbox_id, host::WchanHidden::kNo, std::nullopt});
    if (auto it = c.s.zombie_parent_pods.find(z.pid); it != c.s.zombie_parent_pods.end())
      f.pods.push_back(it->second);
  }
  f.evidence.push_back({"zombie_processes", static_cast<double>(p.zombies), static_cast<double>(c.t.zombies)});
  if (growing)
    f.evidence.push_back({"zombie_growth", static_cast<double>(history.back() - history.front()),
                          static_cast<double>(c.t.zombie_growth)});
  return f;
}

}  // namespace plegscope
