#pragma once
// Which pod a per-pod CRI call was for: the identity (uid, namespace/name,
// sandbox, container name) of every pod the relist inspected lately, by its
// sandbox ids, container ids and uid. Filled just before a pod is inspected,
// so a status call that hangs is already resolvable; read at snapshot time.
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cri/operation_stats.h"
#include "pleg/runtime_pods.h"

namespace plegscope {

struct PodIdentity {
  std::string uid;
  std::string name;
  std::string namespace_;
  std::string sandbox_id;      // the pod's newest sandbox, or the one asked about
  std::string container_name;  // when the call was for one container
  // False once the relist found the pod gone from the runtime's lists: its
  // identity still names calls made before, but nothing of it should run.
  bool listed = true;
};

// Thread-safe; each call takes one short lock. Bounded by what the runtime
// lists: a pod gone from the lists stays findable while it is among the last
// `max_unlisted` to go (a node that churns pods all day keeps only those),
// and past `max_pods` the pods inspected longest ago are forgotten first.
class PodDirectory {
 public:
  explicit PodDirectory(size_t max_pods = 4096, size_t max_unlisted = 256)
      : max_pods_(max_pods), max_unlisted_(max_unlisted) {}

  void remember(const RuntimePod& pod);
  // The relist no longer finds the pod: it stays findable, with listed false.
  void unlist(const std::string& uid);
  std::optional<PodIdentity> find(const CallTarget& target) const;
  size_t size() const;
  size_t ids() const;  // sandbox and container ids indexed

 private:
  struct Known {
    std::string name, namespace_, sandbox_id;
    std::vector<std::string> ids;  // its sandbox and container ids, as indexed
    bool listed = true;
  };
  // At 10,000 containers the index is most of the agent's per-container
  // memory: each id's text is kept once (in its pod's Known::ids, which the
  // key views), and its pod is the pod's key in pods_, not a copy of the uid.
  struct IdEntry {
    const std::string* uid = nullptr;  // a key of pods_: map nodes stay put
    std::string container_name;        // "" for a sandbox id
    bool sandbox = false;
  };
  void index(std::string_view id, IdEntry entry);
  void forget(const std::string& uid);

  const size_t max_pods_, max_unlisted_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Known> pods_;  // by uid
  std::unordered_map<std::string_view, IdEntry> ids_;  // keys view the owning pod's Known::ids
  std::deque<std::string> order_;     // uids, oldest first
  std::deque<std::string> unlisted_;  // uids in the order they went; may name pods listed again since
};

}  // namespace plegscope
