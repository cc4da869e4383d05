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

// Finding::details<>() asked for another cause's details than the
// finding's own: a caller's bug, never a state of the node. Throws
// std::logic_error naming both causes (rule_table.cpp).
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
