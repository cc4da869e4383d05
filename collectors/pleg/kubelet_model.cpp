#include "pleg/pleg_options.h"

namespace plegscope {

KubeletModel kubelet_model_of(int major, int minor) {
  const bool at_least_36 = major > 1 || (major == 1 && minor >= 36);
  const bool at_least_37 = major > 1 || (major == 1 && minor >= 37);
  KubeletModel m;
  m.major = major;
  m.minor = minor;
  // kuberuntime_manager.go: 1.35's GetPodStatus(uid, name, namespace) lists
  // through getSandboxIDByPodUID and getPodContainerStatuses; 1.36's
  // GetPodStatus(pod) reads pod.Sandboxes and pod.Containers.
  m.status_lists = !at_least_36;
  // generic.go 1.36: RequestRelist, relistPod under relistLock on the
  // worker loop; the gate is on by default from 1.36 (beta) and locked on
  // in 1.37 (GA).
  m.pod_relists = at_least_36;
  // generic.go 1.36 reconcilePodRecord: "Make sure we always trigger a
  // PodSync after a full reinspection"; 1.35's relist sends nothing.
  m.pod_sync_after_reinspection = at_least_36;
  // evented.go 1.37: processCRIEvents only calls RequestRelist on a
  // CONTAINER_STOPPED_EVENT; kubelet.go keeps the generic 1 s / 3 min.
  m.evented_hint = at_least_37;
  return m;
}

}  // namespace plegscope
