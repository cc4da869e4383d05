#include "host/host_scanner.h"

#include "common/clock.h"

#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <unordered_map>

#include "host/host_files.h"
#include "host/host_scan_state.h"
#include "host/pod_cgroup.h"
#include "host/process_stat.h"
#include "host/stat_files.h"
#include "host/system_bus.h"

namespace plegscope::host {
namespace {

bool numeric_name(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c; ++c)
    if (*c < '0' || *c > '9') return false;
  return true;
}

std::string read_wchan(const std::string& path) {
  FileText f = read_small_file(path, 128);
  if (!f.ok) return "";
  while (!f.text.empty() && (f.text.back() == '\n' || f.text.back() == '\0')) f.text.pop_back();
  return f.text;
}

const char* cmdline_status_name(CmdlineAnswer::Status s) {
  switch (s) {
    case CmdlineAnswer::Status::kKnown: return "known";
    case CmdlineAnswer::Status::kNoOwner: return "no_owner";
    case CmdlineAnswer::Status::kUnreadable: return "unreadable";
    case CmdlineAnswer::Status::kPending: return "pending";
    case CmdlineAnswer::Status::kBlocked: return "blocked";
  }
  return "";
}

std::optional<ProcessCreds> read_creds(const std::string& status_path) {
  FileText f = read_small_file(status_path, 16 * 1024);
  if (!f.ok) return std::nullopt;
  return parse_status_creds(f.text);
}

// Parents are walked this far up at most: a container's process tree is
// shallow, and a loop in a racing read must end.
constexpr int kMaxAncestry = 32;

// A shim is another's when its command line says so: its -address names
// another containerd's socket, or its -namespace is not the CRI plugin's
// (k8s.io; Docker's moby or ctr's default on the same containerd are not
// the kubelet's pods). Only a shim that names them can be told apart: an
// older shim form without -address or -namespace, and a cmdline not read yet
// (pending, blocked), count as the watched runtime's, as they always have.
// A conmon's argv names no CRI-O socket: every conmon counts.
bool foreign_shim(const CmdlineAnswer& a, const std::string& socket) {
  if (socket.empty()) return false;
  if (!a.address.empty() && !shim_serves_socket(a.address, socket)) return true;
  return !a.name_space.empty() && a.name_space != "k8s.io";
}

// Leaves out the shims of another containerd and the runc processes below
// them (a runc's parent is its shim, a runc init's its runc), keeping
// runtime[i] and helpers[i] the same process.
void drop_foreign_shims(HostEvidence::Processes& procs, std::vector<SeenRuntimeProcess>& runtime,
                        std::unordered_map<int64_t, size_t>& helper_index, std::set<int64_t> foreign) {
  if (foreign.empty()) return;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& h : procs.helpers)
      if (h.role == "oci_runtime" && foreign.count(h.ppid) && foreign.insert(h.pid).second) grew = true;
  }
  size_t kept = 0;
  helper_index.clear();
  for (size_t i = 0; i < runtime.size(); ++i) {
    if (foreign.count(procs.helpers[i].pid)) continue;
    if (kept != i) {  // a self-move would leave the strings unspecified
      runtime[kept] = std::move(runtime[i]);
      procs.helpers[kept] = std::move(procs.helpers[i]);
    }
    helper_index[procs.helpers[kept].pid] = kept;
    ++kept;
  }
  runtime.resize(kept);
  procs.helpers.resize(kept);
}


}  // namespace

std::string resolve_runtime_root(const std::vector<std::string>& daemon_comms,
                                 const std::function<bool(const std::string&)>& exists) {
  // A running daemon names its root; docker keeps images and layers under
  // its own root even though it runs containerd too.
  static const std::pair<const char*, const char*> kByDaemon[] = {
      {"dockerd", "/var/lib/docker"},
      {"crio", "/var/lib/containers/storage"},
      {"containerd", "/var/lib/containerd"}};
  for (const auto& [comm, root] : kByDaemon)
    if (std::find(daemon_comms.begin(), daemon_comms.end(), comm) != daemon_comms.end()) return root;
  for (const char* root : {"/var/lib/containerd", "/var/lib/containers/storage", "/var/lib/docker"})
    if (exists(root)) return root;
  return "";
}

HostScanner::HostScanner(HostScanOptions options, const Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      ticks_(options_.clock_ticks_per_second > 0 ? options_.clock_ticks_per_second : ::sysconf(_SC_CLK_TCK)),
      stat_files_(std::make_unique<StatFiles>(options_.proc_path)),
      cgroup_v2_(options_.sys_path) {
  if (options_.cmdline == HostScanOptions::Cmdline::kOffThread)
    cmdline_ = std::make_unique<CmdlineReader>(options_.proc_path, options_.cmdline_options);
}

HostScanner::~HostScanner() = default;

void HostScanner::set_previous_diskstats(std::vector<DiskCounters> sample, MonoTime taken) {
  std::lock_guard<std::mutex> lock(mu_);
  previous_disk_ = std::move(sample);
  previous_disk_at_ = taken;
}

void HostScanner::watch_pods(std::set<std::string> uids) {
  std::lock_guard<std::mutex> lock(mu_);
  watched_pods_ = std::move(uids);
}

HostEvidence HostScanner::scan() {
  std::lock_guard<std::mutex> lock(mu_);
  HostEvidence out;
  ScanState st;
  st.now = clock_.monotonic();
  if (FileText f = read_small_file(options_.proc_path + "/uptime", 256); f.ok) st.uptime = parse_uptime(f.text);
  if (!read_processes(out, st)) {
    stat_files_->end_scan();
    out.runtime_disk.unreadable = "process scan failed";
    scan_pid_limits(out, {});
    scan_cgroup_v2(out, st);
    return out;
  }
  resolve_helpers(out, st);
  scan_blocked(out, st);
  stat_files_->end_scan();  // what was not read again has exited
  std::vector<std::string> daemon_comms;
  for (const auto& s : st.runtime)
    if (s.role == RuntimeRole::kDaemon) {
      st.daemons.emplace_back(s.stat.pid, s.stat.comm);
      daemon_comms.push_back(s.stat.comm);
    }
  scan_cgroup_v2(out, st);
  first_seen_in_d_ = std::move(st.still_in_d);
  std::stable_sort(out.processes.blocked.begin(), out.processes.blocked.end(),
                   [](const BlockedTask& a, const BlockedTask& b) { return a.seconds_in_d > b.seconds_in_d; });
  read_kernel_stacks(out);
  scan_zombie_parents(out, st);
  scan_daemon_children(out, st);
  scan_system_bus(out, st);
  scan_pid_limits(out, st.daemons);
  scan_disk(out, daemon_comms);
  return out;
}

// One stat read per process: counts, zombies by parent, and the runtime's
// processes. false when <proc> cannot be listed.
bool HostScanner::read_processes(HostEvidence& out, ScanState& st) {
  auto& procs = out.processes;
  const std::string& proc = options_.proc_path;
  DIR* dir = stat_files_->begin_scan() ? ::opendir(proc.c_str()) : nullptr;
  if (!dir) {
    procs.unreadable = "cannot list " + proc;
    return false;
  }
  int64_t malformed = 0;
  char buffer[2048];  // a stat line is ~300 bytes, at most ~1.1 KiB
  while (dirent* e = ::readdir(dir)) {
    if (!numeric_name(e->d_name)) continue;
    long n = stat_files_->read_process(e->d_name, std::strtoll(e->d_name, nullptr, 10), buffer, sizeof buffer);
    if (n < 0) continue;  // exited between readdir and read
    auto stat = parse_process_stat(std::string_view(buffer, static_cast<size_t>(n)));
    if (!stat) {
      ++malformed;
      continue;
    }
    ++procs.total;
    st.parent_of[stat->pid] = stat->ppid;
    procs.threads += stat->num_threads;
    if (stat->state == 'D') ++procs.in_d;
    if (stat->state == 'Z') {
      ++procs.zombies;
      ++st.zombies_by_parent[stat->ppid];
    }
    if (bus_daemon_comm(stat->comm) && stat->state != 'Z') st.bus_candidates.push_back(*stat);
    RuntimeRole role = runtime_role(stat->comm);
    if (role != RuntimeRole::kNone && stat->state != 'Z') st.runtime.push_back({*stat, role});
    st.lineage.push_back({stat->ppid, stat->state, stat->starttime});
    st.comms.emplace_back(stat->pid, std::move(stat->comm));
  }
  ::closedir(dir);
  if (procs.total == 0)
    procs.unreadable = malformed ? "every <pid>/stat under " + proc + " is malformed" : "no process under " + proc;
  else if (malformed)
    procs.unreadable = std::to_string(malformed) + " malformed <pid>/stat file(s) skipped";
  return true;
}

// Which sandbox or container each helper serves (off-thread, bounded).
void HostScanner::resolve_helpers(HostEvidence& out, ScanState& st) {
  auto& procs = out.processes;
  std::vector<CmdlineRequest> requests;
  for (const auto& s : st.runtime)
    if (s.role == RuntimeRole::kShim || s.role == RuntimeRole::kConmon)
      requests.push_back({s.stat.pid, s.stat.starttime, s.role});
  std::vector<CmdlineAnswer> answers;
  if (cmdline_) {
    answers = cmdline_->resolve(requests);
    cmdline_->retain(requests);
  }
  const std::string socket = options_.runtime_socket ? options_.runtime_socket() : "";
  std::set<int64_t> foreign;
  size_t next_request = 0;
  for (const auto& s : st.runtime) {
    HelperProcess h;
    h.pid = s.stat.pid;
    h.ppid = s.stat.ppid;
    h.comm = s.stat.comm;
    h.role = role_name(s.role);
    h.state = s.stat.state;
    h.threads = s.stat.num_threads;
    h.age_seconds = age_of(st, s.stat.starttime);
    if (s.role == RuntimeRole::kShim || s.role == RuntimeRole::kConmon) {
      if (!cmdline_) {
        h.cmdline_status = "skipped";
      } else {
        const CmdlineAnswer& a = answers[next_request];
        h.cmdline_status = cmdline_status_name(a.status);
        (s.role == RuntimeRole::kShim ? h.sandbox_id : h.container_id) = a.owner_id;
        if (s.role == RuntimeRole::kShim && foreign_shim(a, socket)) foreign.insert(h.pid);
      }
      ++next_request;
    }
    st.helper_index[h.pid] = procs.helpers.size();
    procs.helpers.push_back(std::move(h));
  }
  drop_foreign_shims(procs, st.runtime, st.helper_index, std::move(foreign));
  // runc/crun run under the shim (or conmon) of the pod they act on.
  for (auto& h : procs.helpers) {
    if (h.role != "oci_runtime") continue;
    if (auto it = st.helper_index.find(h.ppid); it != st.helper_index.end()) {
      h.sandbox_id = procs.helpers[it->second].sandbox_id;
      h.container_id = procs.helpers[it->second].container_id;
    }
  }
}

BlockedTask HostScanner::blocked_task(ScanState& st, const HelperProcess& h, uint64_t starttime, int64_t tid,
                                      const std::string& comm, const std::string& wchan_path) {
  TaskKey key{h.pid, tid, starttime};
  auto it = first_seen_in_d_.find(key);
  MonoTime since = it == first_seen_in_d_.end() ? st.now : it->second;
  st.still_in_d[key] = since;
  BlockedTask b;
  b.pid = h.pid;
  b.tid = tid;
  b.comm = comm;
  b.role = h.role;
  b.wchan = read_wchan(wchan_path);
  if (b.wchan != "0") {
    b.wchan_hidden = wchan_hidden(b.wchan, std::nullopt, std::nullopt);
  } else {
    if (!st.self_creds) st.self_creds = read_creds(options_.self_status_path);
    auto c = st.target_creds.find(h.pid);
    if (c == st.target_creds.end())
      c = st.target_creds.emplace(h.pid, read_creds(options_.proc_path + "/" + std::to_string(h.pid) + "/status")).first;
    b.wchan_hidden = wchan_hidden(b.wchan, *st.self_creds, c->second);
  }
  b.seconds_in_d = std::chrono::duration<double>(st.now - since).count();
  b.sandbox_id = h.sandbox_id;
  b.container_id = h.container_id;
  return b;
}

// Blocked runtime processes and threads; time in D tracked across scans.
void HostScanner::scan_blocked(HostEvidence& out, ScanState& st) {
  auto& procs = out.processes;
  char buffer[2048];
  for (size_t i = 0; i < st.runtime.size(); ++i) {
    const auto& s = st.runtime[i];
    const HelperProcess& h = procs.helpers[i];
    const std::string base = options_.proc_path + "/" + std::to_string(h.pid);
    if (s.stat.state == 'D') procs.blocked.push_back(blocked_task(st, h, s.stat.starttime, h.pid, h.comm, base + "/wchan"));
    if (s.stat.num_threads <= 1) continue;
    DIR* tasks = ::opendir((base + "/task").c_str());
    if (!tasks) continue;
    const std::string main_thread = std::to_string(h.pid);
    while (dirent* e = ::readdir(tasks)) {
      // The main thread's state is the process's, read above.
      if (!numeric_name(e->d_name) || main_thread == e->d_name) continue;
      long n = stat_files_->read_thread(h.pid, e->d_name, std::strtoll(e->d_name, nullptr, 10), buffer, sizeof buffer);
      if (n < 0) continue;
      auto t = parse_process_stat(std::string_view(buffer, static_cast<size_t>(n)));
      if (!t || t->pid == h.pid || t->state != 'D') continue;
      procs.blocked.push_back(
          blocked_task(st, h, s.stat.starttime, t->pid, t->comm, base + "/task/" + e->d_name + "/wchan"));
    }
    ::closedir(tasks);
  }
}

// The top zombie parents, each with the pod it belongs to: it is a helper,
// or a helper is among its ancestors, or its cgroup names the pod.
void HostScanner::scan_zombie_parents(HostEvidence& out, const ScanState& st) {
  auto& procs = out.processes;
  if (st.zombies_by_parent.empty()) return;
  std::vector<std::pair<int64_t, std::string>> comms = st.comms;
  std::sort(comms.begin(), comms.end());
  for (const auto& [ppid, count] : st.zombies_by_parent) {
    ZombieParent z;
    z.pid = ppid;
    z.zombies = count;
    auto it = std::lower_bound(comms.begin(), comms.end(), std::make_pair(ppid, std::string()));
    if (it != comms.end() && it->first == ppid) z.comm = it->second;
    procs.zombie_parents.push_back(std::move(z));
  }
  std::sort(procs.zombie_parents.begin(), procs.zombie_parents.end(), [](const ZombieParent& a, const ZombieParent& b) {
    return a.zombies != b.zombies ? a.zombies > b.zombies : a.pid < b.pid;
  });
  if (procs.zombie_parents.size() > options_.top_zombie_parents) procs.zombie_parents.resize(options_.top_zombie_parents);
  for (ZombieParent& z : procs.zombie_parents) {
    int64_t pid = z.pid;
    for (int depth = 0; depth < kMaxAncestry && pid > 1; ++depth) {
      auto h = st.helper_index.find(pid);
      if (h != st.helper_index.end() &&
          (procs.helpers[h->second].role == "shim" || procs.helpers[h->second].role == "conmon")) {
        z.sandbox_id = procs.helpers[h->second].sandbox_id;
        z.container_id = procs.helpers[h->second].container_id;
        if (!z.sandbox_id.empty() || !z.container_id.empty()) z.found_by = depth == 0 ? "helper" : "ancestry";
        break;
      }
      auto up = st.parent_of.find(pid);
      if (up == st.parent_of.end()) break;
      pid = up->second;
    }
    if (!z.found_by.empty()) continue;
    if (FileText f = read_small_file(options_.proc_path + "/" + std::to_string(z.pid) + "/cgroup", 16 * 1024); f.ok)
      if (auto uid = pod_uid_from_cgroup(f.text)) {
        z.pod_uid = *uid;
        z.found_by = "cgroup";
      }
  }
}

// The system bus daemons, by their cgroup (a session bus is not systemd's
// way in), with how long each has been seen stalled. One cgroup read per
// candidate: there are one or two on a node.
void HostScanner::scan_system_bus(HostEvidence& out, const ScanState& st) {
  std::map<TaskKey, MonoTime> still;
  for (const ProcessStat& p : st.bus_candidates) {
    const std::string path = options_.proc_path + "/" + std::to_string(p.pid) + "/cgroup";
    FileText f = read_small_file(path, 16 * 1024);
    if (!f.ok) {
      if (out.system_bus.unreadable.empty()) out.system_bus.unreadable = f.error;
      continue;
    }
    if (!in_system_slice(f.text)) continue;
    BusDaemon d;
    d.pid = p.pid;
    d.comm = p.comm;
    d.state = p.state;
    d.stalled = bus_state_stalled(p.state);
    if (d.stalled) {
      const TaskKey key{p.pid, p.pid, p.starttime};
      auto it = first_seen_bus_stalled_.find(key);
      const MonoTime since = it == first_seen_bus_stalled_.end() ? st.now : it->second;
      still[key] = since;
      d.seconds_stalled = std::chrono::duration<double>(st.now - since).count();
    }
    out.system_bus.daemons.push_back(std::move(d));
  }
  first_seen_bus_stalled_ = std::move(still);
}

// At most one read per scan, and only for the runtime's tasks in D: the
// iterator walks every task once but prints only those asked.
void HostScanner::read_kernel_stacks(HostEvidence& out) {
  KernelStacksRead& k = out.processes.kernel_stacks;
  k.enabled = options_.kernel_stacks_enabled;
  if (!k.enabled) return;
  if (!options_.kernel_stack_reader) {
    k.error = options_.kernel_stacks_unavailable;
    return;
  }
  k.available = true;
  auto& blocked = out.processes.blocked;
  if (blocked.empty()) return;
  std::vector<int64_t> tids;
  for (const auto& b : blocked) tids.push_back(b.tid);
  k.tasks_asked = static_cast<int64_t>(tids.size());
  timespec cpu0{}, cpu1{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  const auto wall0 = clock_.monotonic();
  KernelStackReader::Result r = options_.kernel_stack_reader->read(tids);
  k.wall_seconds = std::chrono::duration<double>(clock_.monotonic() - wall0).count();
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  k.cpu_seconds = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) + static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec) / 1e9;
  std::map<int64_t, TaskKernelStack*> by_tid;
  for (auto& st : r.stacks) by_tid[st.tid] = &st;
  int64_t failed = 0;
  for (auto& b : blocked) {
    auto it = by_tid.find(b.tid);
    if (it == by_tid.end() || it->second->pid != b.pid) continue;
    if (it->second->error) {
      ++failed;
      continue;
    }
    b.kernel_stack = std::move(it->second->frames);
    b.kernel_meaning = stack_meaning(b.kernel_stack);
    ++k.tasks_read;
  }
  if (!r.error.empty()) {
    k.error = r.error;
  } else if (k.tasks_read < k.tasks_asked) {
    const int64_t unseen = k.tasks_asked - k.tasks_read - failed;
    k.error = std::to_string(k.tasks_asked - k.tasks_read) + " of " + std::to_string(k.tasks_asked) +
              " tasks in D without a stack";
    if (failed) k.error += ": " + std::to_string(failed) + " refused by the kernel";
    if (unseen)
      k.error += std::string(failed ? ", " : ": ") + std::to_string(unseen) +
                 " not seen by the task iterator (exited since the scan, or outside the agent's PID namespace: the "
                 "iterator walks only the tasks of its own, so the agent needs hostPID)";
  }
}

}  // namespace plegscope::host
