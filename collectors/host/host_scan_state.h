#pragma once
// One HostScanner::scan()'s process table, shared by the parts of the scan
// (host_scanner.cpp, host_scanner_cgroup_v2.cpp). Internal to collectors/host.
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "host/host_scanner.h"
#include "host/process_stat.h"

namespace plegscope::host {

// A runtime process as the scan saw it, before cmdline answers come back.
struct SeenRuntimeProcess {
  ProcessStat stat;
  RuntimeRole role;
};

struct HostScanner::ScanState {
  MonoTime now{};
  std::optional<double> uptime;
  std::vector<SeenRuntimeProcess> runtime;  // runtime[i] is out.processes.helpers[i]
  std::unordered_map<int64_t, int64_t> zombies_by_parent;
  std::unordered_map<int64_t, int64_t> parent_of;  // every process's ppid: zombie parents' pods
  std::vector<std::pair<int64_t, std::string>> comms;  // every process's (pid, comm)
  // every process's (ppid, state, starttime), comms[i]'s: the daemons' children
  struct Lineage {
    int64_t ppid;
    char state;
    uint64_t starttime;
  };
  std::vector<Lineage> lineage;
  std::unordered_map<int64_t, size_t> helper_index;   // pid -> index in helpers
  std::map<TaskKey, MonoTime> still_in_d;           // becomes first_seen_in_d_
  std::vector<std::pair<int64_t, std::string>> daemons;  // (pid, comm)
  std::vector<ProcessStat> bus_candidates;  // dbus-daemon / dbus-broker, system bus or not
  // Reads a task's wchan, and explains a hidden one against the agent's
  // and the task's credentials (each read once per scan).
  std::optional<std::optional<ProcessCreds>> self_creds;
  std::unordered_map<int64_t, std::optional<ProcessCreds>> target_creds;
};

}  // namespace plegscope::host
