#include "diagnoser/culprit.h"

namespace plegscope {

Culprit culprit_of(const Finding& finding) {
  Culprit c;
  c.op = finding.op;
  c.seconds = finding.seconds;
  if (!finding.processes.empty()) {
    // Processes come worst first (longest in D, most zombies).
    const Finding::HostProcess& p = finding.processes.front();
    c.pid = p.pid;
    c.comm = p.comm;
    c.wchan = p.wchan;
    c.sandbox_id = p.sandbox_id;
    if (p.seconds > 0) c.seconds = p.seconds;
  }
  // The pod of that process; without a process, the first pod concerned.
  const PodRef* pod = nullptr;
  for (const PodRef& p : finding.pods)
    if (!c.sandbox_id.empty() && p.sandbox_id == c.sandbox_id) pod = &p;
  if (!pod && !finding.pods.empty() && c.pid == 0) pod = &finding.pods.front();
  if (pod) {
    if (!pod->name.empty()) c.pod = pod->namespace_ + "/" + pod->name;
    if (c.sandbox_id.empty()) c.sandbox_id = pod->sandbox_id;
    c.container = pod->container_name;
  }
  return c;
}

}  // namespace plegscope
