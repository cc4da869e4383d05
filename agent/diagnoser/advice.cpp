#include "diagnoser/advice.h"

#include <algorithm>

namespace plegscope {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// A helper whose threads are all in D on storage.
bool all_on_storage(const Finding& f) {
  if (f.processes.empty()) return false;
  return std::all_of(f.processes.begin(), f.processes.end(),
                     [](const Finding::HostProcess& p) {
                       return storage_wait_channel(p.wchan) || storage_wait_channel(p.kernel_frame) ||
                              p.kernel_class == "storage" || p.kernel_class == "network_fs" ||
                              p.kernel_class == "overlayfs";
                     });
}

}  // namespace

bool storage_wait_channel(std::string_view w) {
  for (std::string_view prefix : {"io_schedule", "bit_wait_io", "wait_on_page", "folio_wait", "__lock_page",
                                  "__folio_lock", "wait_on_buffer", "__wait_on_buffer", "blk_", "jbd2",
                                  "ext4_", "xfs_", "btrfs_", "nfs_", "nfs4_", "rpc_wait", "fuse_", "ovl_",
                                  "ceph_", "wb_wait", "balance_dirty_pages", "submit_bio_wait", "sync_"})
    if (starts_with(w, prefix)) return true;
  return contains(w, "writeback") || contains(w, "_io_wait");
}

Advice advise(const Finding& f) {
  switch (f.id) {
    case CauseId::kRuntimeUnavailable:
      // A blind agent has nothing to say of the runtime: fix the agent.
      return f.form == Form::kBlind ? Advice::kNone : Advice::kRestartRuntime;
    case CauseId::kContainerLockStall:
      return Advice::kRestartRuntime;
    case CauseId::kRuntimeHung:
      // Lists answer and one pod's calls hang: the pod, not the node.
      return f.form == Form::kStuckPod ? Advice::kFixPod : Advice::kRestartRuntime;
    case CauseId::kKubeletInternal:
      return Advice::kRestartKubelet;
    case CauseId::kRuntimeDiskSlow:
      return Advice::kFixStorage;
    case CauseId::kShimHung:
      return all_on_storage(f) ? Advice::kFixStorage : Advice::kReboot;
    case CauseId::kPidExhaustion:
      if (f.details<PidExhaustionDetails>().limit_scope == "runtime") return Advice::kRestartRuntime;
      if (f.details<PidExhaustionDetails>().limit_scope == "kubepods") return Advice::kFixPod;
      return Advice::kReboot;  // the node's pid_max or threads-max
    case CauseId::kMessageTooLarge:
    case CauseId::kTooManyContainers:
    case CauseId::kEventStorm:
    case CauseId::kPodStatusSlow:
    case CauseId::kReinspectBacklog:
    case CauseId::kDefunctProcesses:
    case CauseId::kShimLost:  // recreate the pod: its container's exit would never be seen
    case CauseId::kContainerFrozen:  // thaw that cgroup: the runtime holds nothing
      return Advice::kFixPod;
    case CauseId::kRuntimeSlow:
    case CauseId::kNodePressure:
    case CauseId::kCniSlow:
    case CauseId::kNriStall:  // the plugin is fixed where it runs; nothing of the node
    case CauseId::kRuntimeLosingSupport:  // an upgrade to plan, never a remediator's act
    // The bus daemon is continued where it stopped: the runtime, the kubelet
    // and the pods are fine, and a restart of any of them frees nothing.
    case CauseId::kSystemdBusStalled:
      return Advice::kNone;
    // The runtime's Status: a hung one is cleared by a restart of the
    // runtime (after the stuck CNI call is found); a condition the runtime
    // reports is fixed where its reason points, not by a restart.
    case CauseId::kRuntimeStatusHung:
      return Advice::kRestartRuntime;
    case CauseId::kRuntimeNotReady:
    case CauseId::kRuntimeNetworkNotReady:
      return Advice::kNone;
  }
  return Advice::kNone;
}

void advise_all(std::vector<Finding>& findings) {
  for (Finding& f : findings) f.advice = advise(f);
  auto find = [&findings](CauseId id) -> const Finding* {
    for (const Finding& f : findings)
      if (f.id == id) return &f;
    return nullptr;
  };
  // One pass from the explaining findings' own advice, so no chain of
  // explanations depends on the order of the list.
  std::vector<Advice> own;
  for (const Finding& f : findings) own.push_back(f.advice);
  for (Finding& f : findings) {
    for (const Relation& r : f.relations) {
      if (r.kind != Relation::Kind::kExplainedBy) continue;
      for (CauseId by : r.causes)
        if (const Finding* e = find(by)) f.advice = own[e - findings.data()];
    }
  }
  if (const Finding* disk = find(CauseId::kRuntimeDiskSlow))
    for (const Relation& r : disk->relations)
      if (r.kind == Relation::Kind::kBehind)
        for (Finding& f : findings)
          if (std::find(r.causes.begin(), r.causes.end(), f.id) != r.causes.end()) f.advice = Advice::kFixStorage;
}

}  // namespace plegscope
