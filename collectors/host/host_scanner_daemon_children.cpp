// HostScanner's part that finds what the runtime daemons wait on (their
// children that are not their helpers) and a process's age at the scan;
// host_scanner.cpp holds the process scan.
#include <algorithm>
#include <unordered_map>

#include "host/host_scan_state.h"
#include "host/host_scanner.h"

namespace plegscope::host {

std::optional<double> HostScanner::age_of(const ScanState& st, uint64_t starttime) const {
  if (!st.uptime || ticks_ <= 0) return std::nullopt;
  return std::max(0.0, *st.uptime - static_cast<double>(starttime) / static_cast<double>(ticks_));
}

// The runtime daemons' children that are not their helpers, from the stat
// lines already read: no file is opened for them.
void HostScanner::scan_daemon_children(HostEvidence& out, const ScanState& st) const {
  if (st.daemons.empty()) return;
  std::unordered_map<int64_t, const std::string*> daemon_of;
  for (const auto& [pid, comm] : st.daemons) daemon_of[pid] = &comm;
  auto& children = out.processes.daemon_children;
  for (size_t i = 0; i < st.lineage.size(); ++i) {
    const auto& l = st.lineage[i];
    auto d = daemon_of.find(l.ppid);
    if (d == daemon_of.end() || l.state == 'Z' || st.helper_index.count(st.comms[i].first)) continue;
    DaemonChild c;
    c.pid = st.comms[i].first;
    c.comm = st.comms[i].second;
    c.daemon = *d->second;
    c.state = l.state;
    c.age_seconds = age_of(st, l.starttime);
    children.push_back(std::move(c));
  }
  std::sort(children.begin(), children.end(), [](const DaemonChild& a, const DaemonChild& b) {
    return a.age_seconds.value_or(0) != b.age_seconds.value_or(0) ? a.age_seconds.value_or(0) > b.age_seconds.value_or(0)
                                                                  : a.pid < b.pid;
  });
  if (children.size() > options_.top_daemon_children) children.resize(options_.top_daemon_children);
}

}  // namespace plegscope::host
