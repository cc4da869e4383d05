#pragma once
// The pod status cache the relist fills (the kubelet's kubecontainer.Cache):
// the last inspected status of every pod, read by /debug/pods and reports.
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "cri/runtime_client.h"

namespace plegscope {

struct PodStatus {
  std::string uid;
  std::string name;
  std::string namespace_;
  std::vector<cri::PodSandboxStatus> sandboxes;
  std::vector<cri::ContainerStatus> containers;
  TimePoint timestamp{};  // when the status was observed
};

// Thread-safe.
class PodStatusCache {
 public:
  // Stores `status` unless the cache already holds a newer one for the pod
  // (evented and generic updates race; the newer observation wins).
  // Returns whether it was stored.
  bool set(PodStatus status);
  void remove(const std::string& uid);
  std::optional<PodStatus> get(const std::string& uid) const;
  std::vector<PodStatus> snapshot() const;
  size_t size() const;
  // Time up to which every pod in the cache is known to be current.
  void update_time(TimePoint t);
  TimePoint time() const;

 private:
  // A pod's statuses are kept serialized, one string per pod, and parsed
  // when read (/debug/pods): as parsed messages they were 15.6 MiB of the
  // agent's 49 MiB on a node of 10,000 containers, every id, image and
  // timestamp a heap object of its own.
  struct StoredPod {
    std::string name;
    std::string namespace_;
    std::string statuses;  // sandboxes as field 1, containers as field 2
    TimePoint timestamp{};
  };
  static PodStatus unpack(const std::string& uid, const StoredPod& stored);

  mutable std::mutex mu_;
  std::map<std::string, StoredPod> pods_;
  TimePoint time_{};
};

}  // namespace plegscope
