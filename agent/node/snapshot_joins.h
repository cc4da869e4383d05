#pragma once
// What the snapshot joins across the PLEG and the sources: pure functions
// of their values and of a pod lookup, tested without a Node.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "diagnoser/snapshot.h"
#include "diagnoser/runtime_family.h"
#include "journal/journal_follower.h"
#include "node/sources.h"
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

// The sources' evidence into the snapshot's fields, each source's once:
// a new source adds its line here. Instants are placed on the wall axis
// through `reading` (the snapshot's own); the journal's window counts over
// s.timeline, which is set first.
// PLEG's health (s.healthy, s.health_message) is set first too: the
// kubelet's runtime errors join it with the Status probe's.
void place_sources(Snapshot& s, SourceEvidence evidence, const UnitRoles& journal_units, const ClockReading& reading);
// The joins of the PLEG's pods with the calls in flight and the host's and
// CRI-O's evidence already placed in `s`.
void join_pods(Snapshot& s, const PodLookup& find_pod, const ContainerStates& states);

// The watched runtime as its Version names it (before its first answer, as
// its socket's path does).
RuntimeFamily watched_family(const RuntimeInfo& info, const std::string& endpoint);
// The pods (uids) with a per-pod call in flight.
std::set<std::string> pods_in_flight(const std::vector<Snapshot::PodCall>& calls);
// What the host scan asks: the oldest call's age, the pods with calls in
// flight, and the CRI socket when the runtime is a containerd (a shim that
// names another socket serves another containerd on this host).
HostScanAsks host_scan_asks(double oldest_call_seconds, const std::vector<Snapshot::PodCall>& calls,
                            RuntimeFamily family, const std::string& endpoint);
// What CRI-O's pages ask: the running containers no conmon of the last host
// scan names, placed on the wall axis through `reading`.
CrioPagesAsks crio_pages_asks(const HostObservation& host, const std::vector<RunningContainer>& running,
                              const ClockReading& reading);

// The journal follower's status as the diagnoser reads it, its window counts
// over the relist timeline's span (from its oldest relist, else `now`), so
// that counts and relists agree.
JournalEvidence journal_evidence(const JournalStatus& status, const UnitRoles& units,
                                 const std::vector<RelistRecord>& timeline, TimePoint now);

}  // namespace plegscope
