// shim_hung: a pod's runtime helper (shim, conmon, runc) or one of its
// threads has been in uninterruptible sleep (D), or in a frozen cgroup v2
// cgroup (its tasks then sleep in S, as stopped), for at least the hang
// threshold, or a hung per-pod call belongs to a pod whose helper is in D.
// Whether it explains runtime_hung is decided in interactions.cpp.
#include <algorithm>

#include "diagnoser/hung_task_match.h"
#include "diagnoser/rule.h"
#include "diagnoser/rules/shim_hung.h"

namespace plegscope {
namespace {

bool pod_helper(const host::BlockedTask& b) { return b.role != "daemon"; }

// The pod a blocked helper serves, from its sandbox id.
PodRef pod_of(const Context& c, const std::string& sandbox_id) {
  if (auto it = c.s.pods_by_sandbox.find(sandbox_id); it != c.s.pods_by_sandbox.end()) return it->second;
  PodRef p;
  p.sandbox_id = sandbox_id;
  return p;
}

// --kernel-stacks: the frame that says what the process waits on.
void set_kernel_stack(Finding::HostProcess& p, const host::BlockedTask& b) {
  if (b.kernel_stack.empty()) return;
  p.kernel_says = b.kernel_meaning.says;
  p.kernel_frame = b.kernel_meaning.top_frame;
  p.kernel_class = b.kernel_meaning.frame_class ? host::frame_class_name(*b.kernel_meaning.frame_class) : "";
}

// One blocked task into the finding: one entry per process (`count` is how
// many of its tasks are blocked), its pod, and its evidence.
void add_process(const Context& c, const host::BlockedTask& task, double hang, Finding& f) {
  const host::BlockedTask* b = &task;
  auto same = std::find_if(f.processes.begin(), f.processes.end(),
                           [&](const Finding::HostProcess& p) { return p.pid == b->pid; });
  if (same != f.processes.end()) {
    same->count++;
    if (b->kernel_meaning.says > same->kernel_says) set_kernel_stack(*same, *b);
    return;
  }
  Finding::HostProcess process{b->pid,         b->comm,         b->wchan, b->seconds_in_d, 1,
                               b->sandbox_id, b->wchan_hidden, hung_task_for(c.s, b->pid)};
  process.frozen_cgroup = b->frozen_cgroup;
  process.freeze_incomplete = b->freeze_incomplete;
  f.processes.push_back(process);
  set_kernel_stack(f.processes.back(), *b);
  PodRef pod = pod_of(c, b->sandbox_id);
  bool seen = false;
  for (const auto& p : f.pods) seen = seen || (p.sandbox_id == pod.sandbox_id && p.uid == pod.uid);
  if (!seen && !b->sandbox_id.empty()) f.pods.push_back(pod);
  // A frozen cgroup v2 task sleeps in S: the same stop, named for what it is.
  if (b->frozen_cgroup.empty())
    f.evidence.push_back({"seconds_in_d{pid=" + std::to_string(b->pid) + "}", b->seconds_in_d, hang});
  else
    f.evidence.push_back({"seconds_frozen{pid=" + std::to_string(b->pid) + ",cgroup=" + b->frozen_cgroup +
                              (b->freeze_incomplete ? ",complete=false" : "") + "}",
                          b->seconds_in_d, hang});
  // The kernel's own report on it: how long it said, and what the frames wait on.
  if (const auto& k = process.hung_task) {
    std::string labels = "pid=" + std::to_string(k->pid);
    if (k->pid != b->pid) labels += ",tgid=" + std::to_string(b->pid);
    for (const auto& cls : k->classes) labels += ",class=" + cls;
    if (k->predates_stall_seconds) labels += ",before_stall=true";
    f.evidence.push_back({"kernel_hung_task_blocked_seconds{" + labels + "}", static_cast<double>(k->blocked_seconds),
                          std::nullopt});
  }
}

// A per-pod call of the blocked helper's pod in flight past the hang threshold.
const Snapshot::PodCall* pod_call_of(const Context& c, const host::BlockedTask& b, double hang) {
  if (b.sandbox_id.empty()) return nullptr;
  for (const auto& pc : c.s.pod_calls)
    if (pc.in_flight && pc.seconds > hang && pc.pod.sandbox_id == b.sandbox_id) return &pc;
  return nullptr;
}

// Where the lists take no container lock (CRI-O), what a stuck conmon or
// `runc update`/`runc state` under it holds up is that pod's status calls:
// the slowest one of the window, in flight or done, past the slow-status
// threshold.
const Snapshot::PodCall* slow_status_of(const Context& c, const host::BlockedTask& b) {
  if (c.runtime.lists_wait_on_container_locks || b.sandbox_id.empty()) return nullptr;
  const Snapshot::PodCall* slowest = nullptr;
  for (const auto& pc : c.s.pod_calls) {
    if (!is_status_op(pc.op) || pc.pod.sandbox_id != b.sandbox_id || pc.seconds < c.t.slow_status_seconds) continue;
    if (!pc.in_flight && pc.end < c.window_start) continue;
    if (!slowest || pc.seconds > slowest->seconds) slowest = &pc;
  }
  return slowest;
}

// The kernel stack's top frame, one signal per process whose stack was read.
void add_kernel_stacks(Finding& f) {
  for (const auto& p : f.processes)
    if (!p.kernel_frame.empty())
      f.evidence.push_back({"kernel_stack{pid=" + std::to_string(p.pid) + ",frame=" + p.kernel_frame +
                                (p.kernel_class.empty() ? "" : ",class=" + p.kernel_class) + "}",
                            static_cast<double>(p.count), std::nullopt});
}

}  // namespace

std::optional<Finding> judge_shim_hung(const Context& c) {
  if (!c.s.host) return std::nullopt;
  const double hang = c.t.hang_seconds;
  // Hung per-pod calls, by sandbox: a helper of theirs in D explains them
  // however short its time in D looks (the scanner only sees it from its
  // first scan on).
  const Snapshot::PodCall* hung_call = nullptr;
  const Snapshot::PodCall* slow_call = nullptr;
  std::vector<const host::BlockedTask*> behind_call, behind_slow, in_d, long_blocked;
  for (const auto& b : c.s.host->processes.blocked) {
    if (!pod_helper(b)) continue;
    in_d.push_back(&b);
    if (const Snapshot::PodCall* call = pod_call_of(c, b, hang)) {
      behind_call.push_back(&b);
      if (!hung_call || call->seconds > hung_call->seconds) hung_call = call;
    } else if (const Snapshot::PodCall* slow = slow_status_of(c, b)) {
      behind_slow.push_back(&b);
      if (!slow_call || slow->seconds > slow_call->seconds) slow_call = slow;
    } else if (b.seconds_in_d >= hang) {
      long_blocked.push_back(&b);
    }
  }
  // Calls for no pod (the unfiltered lists) hanging, or already failing at
  // their deadline: with a pod's helper in D meanwhile, they wait on it.
  const RuntimeWideHang lists = runtime_wide_hang(c);
  Form form = Form::kFound;
  const std::vector<const host::BlockedTask*>* named = &long_blocked;
  if (!behind_call.empty()) {
    form = Form::kBehindHungCall;
    named = &behind_call;
  } else if (!behind_slow.empty()) {
    form = Form::kBehindSlowStatus;
    named = &behind_slow;
  } else if (lists.hung && !in_d.empty() && c.runtime.lists_wait_on_container_locks) {
    // containerd's lists wait on every container's status lock; CRI-O's
    // ListContainers takes none, so there a stuck conmon explains only its
    // own container's calls, never a list hang.
    form = Form::kBehindHungLists;
    named = &in_d;
  } else if (!c.hung() && !lists.hung) {
    form = Form::kNothingHangsYet;
  }
  if (named->empty()) return std::nullopt;
  const bool explains_a_hang = form == Form::kBehindHungCall || form == Form::kBehindHungLists;
  const bool only_slows = form == Form::kNothingHangsYet || form == Form::kBehindSlowStatus;
  Finding f = make_finding(CauseId::kShimHung, only_slows ? Severity::kWarning : Severity::kCritical,
                           form == Form::kNothingHangsYet ? 0.6 : only_slows ? 0.75 : explains_a_hang ? 0.92 : 0.8,
                           form);
  ShimHungDetails& d = f.details<ShimHungDetails>();
  d.threshold_seconds = hang;
  if (hung_call) {
    f.op = hung_call->op;
    f.seconds = hung_call->seconds;
    d.call_in_flight = true;
  } else if (slow_call) {
    f.op = slow_call->op;
    f.seconds = slow_call->seconds;
    d.call_in_flight = slow_call->in_flight;
  } else if (form == Form::kBehindHungLists) {
    f.op = lists.op;
    f.seconds = lists.seconds;
    d.call_in_flight = lists.in_flight;
    d.relists = lists.deadline_errors;
    d.runtime_metrics_failed = runtime_metrics_failed(c);
  }
  for (const auto* b : *named) add_process(c, *b, hang, f);
  add_kernel_stacks(f);
  if (hung_call)
    f.evidence.push_back({"oldest_in_flight_seconds{" + hung_call->op + "}", hung_call->seconds, hang});
  if (slow_call)
    f.evidence.push_back({"pod_call_seconds{" + slow_call->op + "}", slow_call->seconds, c.t.slow_status_seconds});
  if (form == Form::kBehindHungLists) {
    if (lists.in_flight) f.evidence.push_back({"oldest_in_flight_seconds{" + lists.op + "}", lists.seconds, hang});
    if (lists.deadline_errors > 0)
      f.evidence.push_back({"list_errors_in_window{DEADLINE_EXCEEDED}", static_cast<double>(lists.deadline_errors), 0});
    if (d.runtime_metrics_failed) f.evidence.push_back({"runtime_metrics_up", 0, 1});
  }
  return f;
}

}  // namespace plegscope
