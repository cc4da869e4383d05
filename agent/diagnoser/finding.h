#pragma once
// What a rule found, as typed values: no sentence. agent/report turns a
// finding into the words the operator reads (report/wording.h), so the
// diagnoser decides and the report speaks.
//
// A finding is a common core, the fields read across causes, plus its
// cause's own details (CauseDetails<id>, in rules/<name>.h beside its rule),
// read by that cause's rule and words only, through details<>().
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/clock.h"
#include "diagnoser/cause_details.h"
#include "diagnoser/finding_values.h"
#include "host/host_evidence.h"

namespace plegscope {

// The kernel's hung-task report (host/hung_task.h) as the diagnoser keeps
// it: on a blocked process of the host section and in shim_hung's processes.
struct KernelHungTask {
  TimePoint time{};  // when the kernel printed it (the journal's time of its first line)
  std::string comm;
  int64_t pid = 0;   // the task: a thread's own id when it is a thread
  int64_t tgid = 0;  // its process when the kernel named it (6.7 on), else 0
  int64_t blocked_seconds = 0;  // "blocked for more than N seconds"
  std::string kernel;
  std::vector<std::string> frames;   // innermost first, bounded
  std::vector<std::string> classes;  // host::frame_class_name(): "storage", "network_fs", ...
  bool truncated = false;            // the trace ended early (bounds, a pause, suppressed lines)
  // On a blocked process: the report was printed this long before plegscope
  // first saw the task in D, so it may tell of an earlier stall than this
  // one. Unset when it was printed during the stall plegscope measures.
  std::optional<double> predates_stall_seconds;
};

// Where a late relist's time goes, for a cause named after the rules from
// it (interactions.h: the forms kNoRelistYet, kLateInLists,
// kLateInInspection): whichever cause it names, the same figures and the
// same words (report/wording.cpp).
struct RelistAttribution {
  double period_seconds = 0;       // the relist period
  double share = 0;                // 0..1 of the relist's time in the lists, or in inspection
  double list_seconds = 0;         // time per relist in the two list calls
  int objects = 0;                 // sandboxes and containers in the newest answer
  double pods_per_relist = 0;      // pods with events per relist
  double status_call_seconds = 0;  // a typical status call
};

// A finding of another cause's details was asked for its own: a bug in the
// caller, never a state of the node (rule_table.cpp).
[[noreturn]] void throw_wrong_details(CauseId held, CauseId asked);

// Thread-compatible value.
struct Finding {
  CauseId id = CauseId::kRuntimeUnavailable;
  Severity severity = Severity::kWarning;
  double confidence = 0;
  Form form = Form::kFound;  // read by interactions.h, advice.h and the repair gate

  // The core: what more than one cause's code reads.
  std::string op;      // the CRI operation label, "list_containers": the culprit's call (culprit.h)
  double seconds = 0;  // what is too long (a call, a list, a relist, a stall): the culprit's time
  // The pods a per-pod cause is about: the culprit's pod, and the sandboxes
  // two findings share (interactions.h).
  std::vector<PodRef> pods;
  // Host evidence: a process below the runtime.
  struct HostProcess {
    int64_t pid = 0;
    std::string comm;
    std::string wchan;   // blocked tasks: where in the kernel (the worst task's)
    double seconds = 0;  // seen in D this long
    int64_t count = 0;   // zombie parents: their zombies; blocked: tasks in D
    std::string sandbox_id;
    host::WchanHidden wchan_hidden = host::WchanHidden::kNo;  // why wchan is not a function
    // Blocked: the kernel's own hung-task report on one of its tasks, when
    // the journal holds one (host/hung_task.h).
    std::optional<KernelHungTask> hung_task;
    // --kernel-stacks: the top meaningful frame of its most telling task's
    // kernel stack and that stack's class ("freezer", "storage", ...); ""
    // when no stack was read.
    std::string kernel_frame{};
    std::string kernel_class{};
    host::StackSays kernel_says = host::StackSays::kNothing;  // weighed against its other tasks'
    // Blocked: stopped by a frozen cgroup v2 cgroup (this path) rather than
    // in D; freeze_incomplete when the freeze was asked and never completed.
    std::string frozen_cgroup{};
    bool freeze_incomplete = false;
  };
  // Blocked helpers, or zombie parents, worst first: the culprit, the
  // advice (a helper all in D on storage), the kernel's hung-task match.
  std::vector<HostProcess> processes;
  std::vector<Evidence> evidence;  // the measured signals, for /diagnose: every cause's
  RelistAttribution attribution;   // the attributed forms only, set after the rules
  // MOVING to each cause's details (rules/<name>.h): read by causes not yet moved.
  // Typed evidence for the words; a cause sets the fields its forms print.
  std::string endpoint;           // the CRI endpoint, "unix:///run/containerd/containerd.sock"
  std::string blind_reason;       // runtime_unavailable kBlind: pleg_runtime_unreachable's reason
  double median_seconds = 0;      // the median beside a p99 in `seconds`
  double threshold_seconds = 0;   // what `seconds` was judged against
  double period_seconds = 0;      // the relist period
  double window_seconds = 0;      // the time the counts below cover
  double list_seconds = 0;        // time per relist in the two list calls
  double status_call_seconds = 0; // a typical status call
  double share = 0;               // 0..1: of the relist's time, or of the message limit
  double bytes = 0;               // a list answer's size
  double limit_bytes = 0;         // the gRPC message limit
  double pods_per_relist = 0;     // pods with events per relist
  double events_per_relist = 0;
  int relists = 0;                // relists counted (failed, in a row)
  int calls = 0;                  // calls counted (failed)
  int pod_count = 0;              // pods counted (waiting for reinspection)
  int objects = 0;                // sandboxes and containers in the newest answer
  int exited = 0;                 // of them, exited containers
  int discarded = 0;              // events discarded
  bool call_in_flight = false;    // a call still in flight is among the slow ones
  bool mostly_exited = false;     // exited containers are much of the list
  bool failed_last = false;       // the newest relist failed too
  std::vector<PressureReading> pressure;
  // container_frozen: a container's, pod's or kubepods' cgroup v2 cgroup
  // frozen (or freezing), with the pod it holds.
  struct FrozenCgroup {
    std::string path;        // relative to the v2 root
    std::string role;        // "container", "pod", "kubepods"
    double seconds = 0;      // seen stopped this long (a lower bound)
    bool incomplete = false; // cgroup.freeze 1, frozen 0: the freeze never completed
    bool inherited = false;  // its own cgroup.freeze is 0: a parent the scan does not read froze it
    PodRef pod;              // empty for kubepods
  };
  std::vector<FrozenCgroup> frozen;
  // systemd_bus_stalled: the system bus daemon that answers nothing (the
  // runtime helpers waiting on it are in `processes`, `seconds` their age).
  struct BusDaemon {
    int64_t pid = 0;
    std::string comm;  // "dbus-daemon", "dbus-broker"
    char state = '?';  // 'T', 't' or 'D'
    double seconds = 0;  // seen stalled this long (a lower bound)
  };
  std::optional<BusDaemon> bus;
  int64_t zombies = 0;
  std::string limit_scope;  // pid_exhaustion: "runtime", "kubepods", "node_pid_max", "node_threads_max"
  std::string limit_cgroup; // the cgroup that binds, when a cgroup does
  int64_t current = 0, maximum = 0;
  std::string device;       // runtime_disk_slow
  std::string mount;
  double latency_ms = 0;
  double utilization = 0;

  // The kubelet beside the agent and the runtime's own metrics.
  std::string method;             // a gRPC method inside the runtime, "UpdateContainerResources"
  double in_flight_count = 0;     // calls of `method` in flight
  std::string nri_plugin;         // nri_stall: the plugin as NRI registered it, "10-stall"
  int timeouts = 0;               // nri_stall: its calls NRI gave up on at its request timeout
  std::optional<double> kubelet_last_seen_age_seconds;
  std::optional<double> kubelet_flat_seconds;  // since the kubelet's relist count last moved
  double agent_relist_p99_seconds = 0;
  double model_threshold_seconds = 0;  // the kubelet's PLEG threshold in its model
  // The kubelet's own "PLEG is not healthy" journal lines in the window.
  int journal_marks = 0;
  std::optional<TimePoint> journal_first_mark, journal_last_mark;
  std::string journal_last_message;

  // The runtime's CRI Status (the kubelet's other NotReady path).
  std::optional<double> status_down_in_seconds;  // until "container runtime is down"; 0: it is
  std::string condition_reason, condition_message;  // a condition as the runtime gave it
  bool condition_missing = false;  // the runtime gave no such condition (the kubelet's <nil>)
  int transitions = 0;             // readiness changes over the recent Status calls
  // runtime_network_not_ready, kPluginUnhealthy: the network the runtime
  // loaded (its first configuration file) and the plugin whose STATUS failed,
  // "" where the error names none of a chain's plugins; its own words.
  std::string cni_conf_dir, cni_file, cni_network, cni_plugin, cni_plugin_error;
  std::vector<std::string> cni_plugins;
  std::string cni_read_error;  // the directory could not be read: named from the runtime's message only
  bool cni_no_network = false;  // the directory holds no loadable configuration (not the runtime's, then)
  bool lists_answer = false;       // the PLEG's lists answer meanwhile
  // The kubelet's Ready message, where readable, says this very thing.
  bool ready_message_agrees = false;

  // runtime_losing_support: the runtime as its Version names it, and the
  // kubelet release that says it stops falling back ("1.38.0"), from the
  // kubelet's own series or from what that kubelet's release announces.
  std::string runtime_name, runtime_version;
  std::string losing_support_from;
  std::string kubelet_version;    // "v1.37.2"; "" when the agent could not read it
  bool kubelet_says = false;      // kubelet_cri_losing_support was read

  bool runtime_metrics_failed = false;
  bool no_helper_in_d = false;
  bool pod_relist = false;
  // END MOVING
  // Evidence strong enough to be the root of other causes (interactions.h),
  // e.g. pressure well past its threshold.
  bool strong = false;
  std::vector<Relation> relations;  // set by interactions.h
  Advice advice = Advice::kNone;    // set by advise(), after the relations

  // This finding's cause's own details: f.details<NriStallDetails>().
  // Asking for another cause's throws std::logic_error: a caller's bug, which
  // fails the test that asks. A finding that recorded none (a cause read back
  // from JSON carries only the core) reads the details' defaults, and its
  // first write through the mutable form starts them.
  template <class Details>
  const Details& details() const {
    expect_details_of(DetailsCause<Details>::id, std::holds_alternative<Details>(details_));
    if (const Details* held = std::get_if<Details>(&details_)) return *held;
    static const Details kNone{};
    return kNone;
  }
  template <class Details>
  Details& details() {
    expect_details_of(DetailsCause<Details>::id, std::holds_alternative<Details>(details_));
    if (std::holds_alternative<std::monostate>(details_)) details_.template emplace<Details>();
    return std::get<Details>(details_);
  }

 private:
  void expect_details_of(CauseId asked, bool held) const {
    const bool none_yet = std::holds_alternative<std::monostate>(details_);
    if (asked != id || (!held && !none_yet)) throw_wrong_details(id, asked);
  }
  AnyCauseDetails details_;
};

// A finding with its confidence rounded and capped below certainty: no
// measurement makes a diagnosis certain.
Finding make_finding(CauseId id, Severity severity, double confidence, Form form = Form::kFound);

}  // namespace plegscope
