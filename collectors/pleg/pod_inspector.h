#pragma once
// One pod's status, fetched call for call as the kubelet's GetPodStatus does,
// so the cost plegscope measures is the cost the kubelet pays.
#include <string>

#include "common/clock.h"
#include "cri/runtime_client.h"
#include "pleg/pod_status_cache.h"
#include "pleg/runtime_pods.h"

namespace plegscope {

struct InspectionCost {
  int calls = 0;
  Duration time{0};
};

// The kubelet up to 1.35: ListPodSandbox (label io.kubernetes.pod.uid=uid),
// PodSandboxStatus for each sandbox, ListContainers (same label),
// ContainerStatus for each container, serially. The first failing call
// fails the inspection; NOT_FOUND (removed since the list) is skipped.
CallResult<PodStatus> inspect_pod(RuntimeClient& runtime, const Clock& clock,
                                  const std::string& uid, const std::string& name,
                                  const std::string& namespace_, InspectionCost& cost);

// The kubelet from 1.36: no list; PodSandboxStatus for each sandbox and
// ContainerStatus for each container the relist found for the pod, serially,
// with the same failure and NOT_FOUND rules.
CallResult<PodStatus> inspect_listed_pod(RuntimeClient& runtime, const Clock& clock, const RuntimePod& pod,
                                         InspectionCost& cost);

}  // namespace plegscope
