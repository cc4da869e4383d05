#pragma once
// The parts of a finding every cause shares, and the key of each cause's own
// typed details (CauseDetails<id>, defined beside its rule in
// rules/<name>.h). A value header: types only, so a cause's details header
// includes this and nothing heavier.
#include <optional>
#include <string>
#include <vector>

#include "diagnoser/causes.h"

namespace plegscope {

enum class Severity { kInfo, kWarning, kCritical };

// What an operator or a remediator should do about a cause (docs/report.md
// "advice"); plegscope itself never acts. Set by advise() (advice.h).
enum class Advice { kNone, kFixPod, kRestartKubelet, kRestartRuntime, kFixStorage, kReboot, kReplace };

// A measured signal as /diagnose lists it (docs/report.md): a machine name such
// as "oldest_in_flight_seconds{list_containers}", its value and threshold.
struct Evidence {
  std::string signal;
  double value = 0;
  std::optional<double> threshold;
};

// The pod a per-pod finding is about.
struct PodRef {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string sandbox_id;
  std::string container_name;  // empty when the sandbox itself is meant
};

// How a cause was found, when it can be found in more than one way; each
// form has its own words.
enum class Form {
  kFound,  // the cause's only form
  // runtime_unavailable
  kSocketMissing,
  kDown,
  kFlapping,
  kBlind,  // the agent cannot see the runtime for a reason of its own
  // runtime_hung
  kCallHung,
  kDeadlines,
  kStalling,
  // runtime_slow
  kListCallSlow,
  kListsSlowPerRelist,
  // message_too_large
  kOverLimit,
  kNearLimit,
  // node_pressure: what the runtime's calls do meanwhile
  kWhileCallHung,
  kWhileCallsSlow,
  kWhileRelistsSlow,
  kCallsNotSlowYet,
  // attributed after the rules (interactions.h): no rule named a cause, so
  // it is named from where the relist's time goes
  kNoRelistYet,
  kLateInLists,
  kLateInInspection,
  // runtime_hung: lists answer, one pod's calls hang
  kStuckPod,
  // shim_hung: the helper of a hung per-pod call's pod is in D
  kBehindHungCall,
  // shim_hung: calls for no pod (the unfiltered lists) hang while a pod's
  // helper is in D: the lists wait on it (containerd's per-container status
  // lock, held by a call waiting on that shim)
  kBehindHungLists,
  // shim_hung: a helper in D for the hang threshold while nothing hangs yet;
  // systemd_bus_stalled: the bus stalled that long while no start waits on it
  kNothingHangsYet,
  // shim_hung: a pod's helper (conmon, or runc under it) stuck while that
  // pod's status calls are slow, on a runtime whose lists take no container
  // lock (CRI-O): only that pod's inspection waits, the lists answer
  kBehindSlowStatus,
  // kubelet_internal: the kubelet's metrics unreadable; named from its
  // journal's "PLEG is not healthy" lines beside the agent's fast relists
  kFromJournal,
  // runtime_status_hung: Status has no answer while the lists answer (a CNI
  // lock, a deadlocked plugin), or while the lists hang too
  kStatusWhileListsAnswer,
  kStatusWithLists,
  // runtime_status_hung: Status answers with an error (not a deadline)
  kStatusFailing,
  // runtime_network_not_ready: a configured CNI plugin answers STATUS
  // unhealthy (CNI 1.1.0), where kFound is no network configuration at all
  kPluginUnhealthy,
  // runtime_losing_support: only the kubelet's kubelet_cri_losing_support
  // says it (the agent's own RuntimeConfig has no answer yet)
  kFromKubelet,
};

// How one finding relates to others, decided after the rules.
struct Relation {
  enum class Kind {
    kPressureMayExplain,  // node pressure may explain this one
    kLikelyRootOf,        // strong pressure: the likely root of `causes`
    kMaySlow,             // mild pressure: may be slowing `causes`
    kClearsWith,          // a backlog of the failing lists of `causes`
    kExplainedBy,         // `causes` explains this one: another client's call holding the
                          // runtime's lock or a pod's stuck helper
    kExplains,            // this stuck helper explains `causes`
    kListsWaitOn,         // `causes` (the hung lists) wait on this stuck helper
    kBehind,              // the runtime's slow disk is behind `causes`
  } kind;
  std::vector<CauseId> causes;
};

// The runtime's condition as it gave it in its CRI Status, on a finding
// about it (runtime_not_ready, runtime_network_not_ready).
struct ReportedCondition {
  std::string reason, message;
  bool missing = false;  // the runtime gave no such condition (the kubelet's <nil>)
};

// Each cause's own typed details: CauseDetails<CauseId::kNriStall> is
// defined in rules/nri_stall.h. Declared, never defined here: a cause whose
// details header cause_details.h does not include fails to compile rather
// than get an empty stand-in.
template <CauseId>
struct CauseDetails;

// The cause a details type belongs to: DetailsCause<NriStallDetails>::id.
template <class Details>
struct DetailsCause;
template <CauseId Id>
struct DetailsCause<CauseDetails<Id>> {
  static constexpr CauseId id = Id;
};

}  // namespace plegscope
