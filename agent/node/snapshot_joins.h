#pragma once
// What the snapshot joins across the PLEG and the sources: pure functions
// of their values and of a pod lookup, tested without a Node.
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "diagnoser/snapshot.h"
#include "journal/journal_follower.h"
#include "pleg/pod_directory.h"

namespace plegscope {

// The PLEG's pod behind a call target (a sandbox, container or pod uid), if
// it inspected one.
using PodLookup = std::function<std::optional<PodIdentity>(const CallTarget&)>;

// CRI-O's conmon names its container, not its sandbox: the sandbox of a
// blocked conmon (or of zombies under one) from the PLEG's pods, so the
// report names it with its pod.
void fill_conmon_sandboxes(host::HostEvidence& evidence, const PodLookup& find_pod);
// Per-pod calls in flight (oldest first) and the slowest recent ones, each
// with its pod; a pod not known yet is named by its id alone.
std::vector<Snapshot::PodCall> pod_calls(const std::map<std::string, OperationStats>& operations,
                                         const PodLookup& find_pod);
// The pods of the sandboxes the host evidence names (helpers in D, zombie parents).
std::map<std::string, PodRef> pods_by_sandbox(const host::HostEvidence& evidence, const PodLookup& find_pod);
// The pod each shim or conmon (by pid) serves, among the pods the runtime lists now.
std::map<int64_t, PodRef> shim_pods(const host::HostEvidence& evidence, const PodLookup& find_pod);
// The pod of each zombie parent (by pid) the host evidence ties to one.
std::map<int64_t, PodRef> zombie_parent_pods(const host::HostEvidence& evidence, const PodLookup& find_pod);

// A running container (id, started_at in unix nanoseconds) as the PLEG's
// status cache holds it.
struct RunningContainer {
  std::string id;
  int64_t started_at_ns = 0;
};
// The running containers no conmon of `evidence` names, among those started
// before `scanned_at_ns` (a container started after the scan has its conmon
// unseen yet); none when a conmon's command line could not be read (then
// nothing can be told).
std::vector<std::string> containers_without_conmon(const host::HostEvidence& evidence, int64_t scanned_at_ns,
                                                   const std::vector<RunningContainer>& running);
// The pod of each container CRI-O's pages found without its conmon.
std::map<std::string, PodRef> unmonitored_pods(const CrioPagesEvidence& pages, const PodLookup& find_pod);

// The runtime's state of each (pod uid, container or sandbox id) at the last
// relist, "" where it lists none; nullopt while a relist runs.
using ContainerStates = std::function<std::optional<std::vector<std::string>>(
    const std::vector<std::pair<std::string, std::string>>& uid_ids)>;
// The cgroup v2 containers' runtime states (populated against what the
// runtime lists) and the pods of the cgroups the host scan names.
void join_cgroup_v2(Snapshot& s, const PodLookup& find_pod, const ContainerStates& states);

// The journal follower's status as the diagnoser reads it, its window counts
// over the relist timeline's span (from its oldest relist, else `now`), so
// that counts and relists agree.
JournalEvidence journal_evidence(const JournalStatus& status, const UnitRoles& units,
                                 const std::vector<RelistRecord>& timeline, TimePoint now);

}  // namespace plegscope
