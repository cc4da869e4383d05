#pragma once
// What a cgroup directory's name says under kubepods, for the two drivers
// the kubelet and the runtimes use:
//   systemd:  kubepods.slice/kubepods-burstable.slice/
//               kubepods-burstable-pod<uid with _>.slice/cri-containerd-<id>.scope
//             (CRI-O: crio-<id>.scope, crio-conmon-<id>.scope; docker: docker-<id>.scope)
//   cgroupfs: kubepods/burstable/pod<uid>/<id>
// Guaranteed pods sit directly under kubepods(.slice). Pure.
#include <string>
#include <string_view>

namespace plegscope::host {

struct CgroupName {
  enum class Kind { kOther, kQos, kPod, kContainer, kConmon } kind = Kind::kOther;
  std::string pod_uid;       // kPod, with dashes
  std::string container_id;  // kContainer, kConmon
};

CgroupName classify_cgroup_name(std::string_view name);

}  // namespace plegscope::host
