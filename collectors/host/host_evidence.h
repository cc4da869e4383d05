#pragma once
// Host evidence below the CRI, as the host scan (host/host_scanner.h) hands
// it over: the runtime's helper processes and which of them (or their
// threads) sit in uninterruptible sleep, zombies by parent, the PID limits
// that bind the runtime, and the latency of the disk under the runtime's
// root. Each part that could not be read says why in its `unreadable` field.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "host/cgroup_v2_evidence.h"
#include "host/hung_task_evidence.h"
#include "host/wchan_evidence.h"

namespace plegscope::host {

// How much a task's kernel stack says, least first: nothing (not read),
// frames, or frames of a known class. Of one process's tasks, the first
// that says the most is the one to show (a thread frozen in place keeps the
// stack of the call it slept in, so the process's worst task is not always
// its telling one).
enum class StackSays { kNothing, kFrames, kClass };

// --kernel-stacks: what a blocked task's kernel stack says, read by the
// scan (stack_meaning() in host/kernel_stacks.h).
struct KernelStackMeaning {
  std::string top_frame;                  // the innermost frame that says what it waits on; "" when none
  std::optional<FrameClass> frame_class;  // the class of its first classified frame
  StackSays says = StackSays::kNothing;
};

struct HelperProcess {
  int64_t pid = 0;
  int64_t ppid = 0;
  std::string comm;
  std::string role;  // "shim", "conmon", "oci_runtime", "daemon"
  char state = '?';
  int64_t threads = 0;
  std::optional<double> age_seconds;  // nullopt without <proc>/uptime
  std::string sandbox_id;             // shim: its -id; runc/crun: its parent shim's
  std::string container_id;           // conmon: its -c
  std::string cmdline_status;         // "known", "no_owner", "unreadable", "pending", "blocked", "skipped", ""
};

// A runtime process or one of its threads in D (uninterruptible sleep), or
// a runtime process whose cgroup v2 cgroup is frozen: its tasks then sleep
// in S, trapped in the freezer (wchan get_signal / do_freezer_trap), and
// cannot run any more than a task in D can.
struct BlockedTask {
  int64_t pid = 0;
  int64_t tid = 0;  // == pid for the process's own (main thread) state
  std::string comm;
  std::string role;
  char state = 'D';
  std::string wchan;  // "" when unreadable; "0" when the kernel hides it
  // Time this task has been seen in D by this scanner: the kernel does not
  // publish when a task entered D, so it is tracked across scans from the
  // first scan that saw it there (0 on that scan). A lower bound.
  double seconds_in_d = 0;
  std::string sandbox_id;
  std::string container_id;
  WchanHidden wchan_hidden = WchanHidden::kNo;  // why wchan is not a kernel function
  // --kernel-stacks: its kernel stack, innermost first, function names only;
  // empty when not read (the mode off or unavailable, or the task gone).
  std::vector<std::string> kernel_stack{};
  KernelStackMeaning kernel_meaning{};  // what that stack says (stack_meaning())
  // Frozen through cgroup v2: the frozen cgroup (relative to the v2 root),
  // and whether its freeze was asked but has not completed; "" when in D.
  std::string frozen_cgroup{};
  bool freeze_incomplete = false;
};

// --kernel-stacks: what the last scan's read of the blocked tasks' stacks did.
struct KernelStacksRead {
  bool enabled = false;    // --kernel-stacks given
  bool available = false;  // and its reader is loaded
  std::string error;     // why no stack (or not every stack) was read; "" when all were
  int64_t tasks_asked = 0;
  int64_t tasks_read = 0;
  double wall_seconds = 0;  // the read's own wall and CPU time (0 when no task was asked)
  double cpu_seconds = 0;
};

// A process a runtime daemon started and still waits on that is not one of
// its helpers: a CNI plugin running ADD, DEL or STATUS, an image unpacker, a
// mount helper. Each lives for the call that started it, so one that has run
// for seconds holds that call (containerd 2.x runs the CNI plugins' STATUS
// inside the CRI Status, with no deadline of its own).
struct DaemonChild {
  int64_t pid = 0;
  std::string comm;
  std::string daemon;  // its parent's comm ("containerd", "crio")
  char state = '?';
  std::optional<double> age_seconds;  // nullopt without <proc>/uptime
};

struct ZombieParent {
  int64_t pid = 0;
  std::string comm;  // "" when the parent is gone or unreadable
  int64_t zombies = 0;
  // The pod it belongs to, by the first that names one: the parent is a
  // shim or conmon, or runs below one (a container's process: its shim is
  // an ancestor), or its cgroup names a pod uid.
  std::string sandbox_id;    // a shim's
  std::string container_id;  // a conmon's
  std::string pod_uid;       // from <proc>/<pid>/cgroup
  std::string found_by;      // "helper", "ancestry", "cgroup", or "" when none
};

struct PidLimit {
  std::string scope;   // "runtime", "kubepods", "node_pid_max", "node_threads_max"
  std::string owner;   // runtime: the daemon's comm ("containerd"); else ""
  std::string cgroup;  // relative to <sys>/fs/cgroup; "" for node scopes
  std::string limited_by;  // the cgroup whose pids.max binds (may be an ancestor)
  int64_t current = 0;
  std::optional<int64_t> max;  // nullopt: "max", no limit
  std::optional<double> ratio;
  std::string unreadable;  // "" when read
};

struct RuntimeDisk {
  std::string root;      // the runtime root looked up
  std::string mount;     // its mount point
  std::string fs_type;
  std::string device;    // "sda1", "nvme0n1p2", "dm-0"
  uint32_t major = 0, minor = 0;
  std::optional<double> latency_ms;   // ms per completed IO over the interval
  std::optional<double> utilization;  // 0..1, share of the interval busy
  uint64_t completed_ios = 0;
  uint64_t in_flight = 0;
  double interval_seconds = 0;  // 0 on the first sample: no rates yet
};

// A system bus daemon (host/system_bus.h): dbus-daemon or dbus-broker in
// systemd's system.slice, the bus runc and crun reach systemd through with
// the systemd cgroup driver.
struct BusDaemon {
  int64_t pid = 0;
  std::string comm;
  char state = '?';
  bool stalled = false;  // in T, t or D: it answers nothing (bus_state_stalled())
  // Time this scanner has seen it stalled (T, t or D) without a break, from
  // the first scan that saw it so (0 on that scan): a lower bound, as the
  // kernel does not publish when a task stopped.
  double seconds_stalled = 0;
};

struct HostEvidence {
  struct Processes {
    int64_t total = 0;    // processes read
    int64_t threads = 0;  // their threads: what pid_max / threads-max limit
    int64_t in_d = 0;     // processes in D, node-wide (helpers or not)
    std::vector<HelperProcess> helpers;  // helpers and daemons
    std::vector<BlockedTask> blocked;    // longest in D first
    std::vector<DaemonChild> daemon_children;  // longest running first, top N
    KernelStacksRead kernel_stacks;
    int64_t zombies = 0;
    std::vector<ZombieParent> zombie_parents;  // most zombies first, top N
    std::string unreadable;
  } processes;
  std::vector<PidLimit> pid_limits;
  struct Disk {
    std::optional<RuntimeDisk> value;
    std::string unreadable;
  } runtime_disk;
  CgroupV2Evidence cgroup_v2;
  struct SystemBus {
    std::vector<BusDaemon> daemons;  // none on a node without a system bus
    std::string unreadable;          // a candidate's cgroup that could not be read
  } system_bus;
};

}  // namespace plegscope::host
