#pragma once
// What the kubelet's PLEG does in one release, as a value (pleg_options.h: kubelet_model_of).

namespace plegscope {

// What the kubelet's PLEG does differently from one release to the next, as
// its source says (pkg/kubelet/pleg/generic.go, evented.go and
// kuberuntime_manager.go's GetPodStatus of each release). The agent copies
// the kubelet beside it, so the calls it makes are the calls that kubelet
// makes. The default is the newest released kubelet's (1.37): the model the
// agent assumes when it cannot read the kubelet.
struct KubeletModel {
  // Up to 1.35 GetPodStatus lists the pod again (ListPodSandbox and
  // ListContainers filtered by its uid label) before the status calls; from
  // 1.36 it takes the ids from the relist and makes only the status calls.
  bool status_lists = false;
  // 1.36+ (PLEGOnDemandRelist, beta on in 1.36, GA and locked in 1.37): a
  // pod is relisted alone on request, on the relist's own worker and lock.
  bool pod_relists = true;
  // 1.36+: a re-inspection that finds no change still sends a PodSync.
  bool pod_sync_after_reinspection = true;
  // 1.37+: with EventedPLEG on, the events only request pod relists; the
  // generic relist keeps 1 s / 3 min and the evented health check is gone.
  bool evented_hint = true;
  // The release copied, for logs and the report ("1.37").
  int major = 1;
  int minor = 37;

  bool operator==(const KubeletModel& o) const {
    return status_lists == o.status_lists && pod_relists == o.pod_relists &&
           pod_sync_after_reinspection == o.pod_sync_after_reinspection && evented_hint == o.evented_hint &&
           major == o.major && minor == o.minor;
  }
  bool operator!=(const KubeletModel& o) const { return !(*this == o); }
};

// The newest released kubelet's minor version (1.37), whose model
// KubeletModel's defaults are.
inline constexpr int kNewestKubeletMinor = 37;

}  // namespace plegscope
