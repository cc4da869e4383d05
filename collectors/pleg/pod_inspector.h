#pragma once
// One pod's status, fetched call for call as the kubelet's GetPodStatus does,
// so the cost plegscope measures is the cost the kubelet pays.
#include <string>

#include "common/clock.h"
#include "cri/runtime_client.h"
#include "pleg/pod_status_cache.h"

namespace plegscope {

struct InspectionCost {
  int calls = 0;
  Duration time{0};
};

// ListPodSandbox (label io.kubernetes.pod.uid=uid), PodSandboxStatus for each
// sandbox, ListContainers (same label), ContainerStatus for each container,
// serially. The first failing call fails the inspection.
CallResult<PodStatus> inspect_pod(RuntimeClient& runtime, const Clock& clock,
                                  const std::string& uid, const std::string& name,
                                  const std::string& namespace_, InspectionCost& cost);

}  // namespace plegscope
