#pragma once

namespace plegscope {

// Every knob a rule compares against. Defaults are what the rules ship with;
// the unit tests put each rule just below and just above them.
struct DiagnoserThresholds {
  double hang_seconds = 10;          // --hang-threshold
  double window_seconds = 30;        // relists started this recently are evidence ...
  int window_relists = 3;            // ... and so are the last this many, however long ago
  int newest_calls = 5;              // call latency: the median of each operation's newest calls
  // A relist this many periods long makes events late enough to name a cause.
  double late_relist_periods = 2;
  // runtime_unavailable: trailing relists failing with UNAVAILABLE.
  int unavailable_relists = 1;
  // runtime_slow: median time in list calls per relist, and cost per object.
  double slow_list_seconds = 0.5;
  double slow_list_seconds_per_item = 0.001;
  // message_too_large: the gRPC receive limit and the share of it that warns.
  double message_limit_bytes = 16.0 * 1024 * 1024;
  double message_warn_fraction = 0.75;
  // too_many_containers: sandboxes + containers in the last answer.
  int many_objects = 1000;
  double exited_share = 0.5;
  // event_storm: pods with events per relist (mean over the window).
  double storm_pods_per_relist = 10;
  // pod_status_slow: p99 of PodSandboxStatus / ContainerStatus.
  double slow_status_seconds = 0.5;
  // reinspect_backlog: relists in a row with pods waiting for reinspection.
  int reinspect_relists = 3;
  // node_pressure: PSI some avg10 (percent), load per CPU.
  double cpu_psi = 40;
  double io_psi = 25;
  double memory_psi = 10;
  double load_per_cpu = 2;
  double pid_usage = 0.9;
  // container_lock_stall: a call counts as stuck, not busy, while
  // at most this many calls of its method completed since it was first seen.
  double stuck_call_max_completions = 1;
  // cni_slow: network setup/teardown p99 or a sandbox call in flight.
  double cni_slow_seconds = 10;
  // ... unless this many sandbox calls of one kind ended around the slow
  // ones: a rollout, whose sandboxes wait on each other and a busy node.
  double cni_mass_sandboxes = 10;
  // nri_stall: an NRI plugin call that ended this slow (containerd's default
  // plugin_request_timeout is 2 s; a plugin answers in milliseconds).
  double nri_slow_seconds = 1;
  // Host causes.
  int zombies = 100;              // defunct_processes: zombies on the node ...
  int zombie_growth = 20;         // ... or this many more across the scans kept, never fewer
  double pid_limit_usage = 0.9;   // pid_exhaustion: any limit this full
  double disk_latency_ms = 100;   // runtime_disk_slow: ms per completed IO ...
  double disk_utilization = 0.9;  // ... or share of the interval busy
  // causes below this confidence are not reported at all
  double min_confidence = 0.3;
};

}  // namespace plegscope
