#pragma once
// SimulatedNode: the pods, sandboxes and containers of a fake node and how
// they change over time (crash loops, exited containers piling up, pods
// being created and deleted). Pure model: no gRPC, no threads, no sleeping;
// time comes from an injected Clock and randomness from a seeded generator,
// so a unit test steps a fake clock and gets the same node every run.
//
// Thread-safe: every public method takes the model's mutex. The event sink is
// called with that mutex held and must not call back into the model.
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "clock.h"
#include "scenario.h"

namespace fakecri {

using Labels = std::map<std::string, std::string>;

enum class SandboxState { Ready, NotReady };
enum class ContainerState { Created, Running, Exited, Unknown };
const char* state_name(ContainerState s);  // "created", "running", ...

struct SandboxRecord {
  std::string id;
  std::string pod_uid;
  std::string pod_name;
  std::string pod_namespace;
  uint32_t attempt = 0;
  SandboxState state = SandboxState::Ready;
  int64_t created_at = 0;  // unix nanoseconds
  Labels labels;
  Labels annotations;
};

struct ContainerRecord {
  std::string id;
  std::string sandbox_id;
  std::string pod_uid;
  std::string name;
  uint32_t attempt = 0;
  ContainerState state = ContainerState::Created;
  int64_t created_at = 0;
  int64_t started_at = 0;
  int64_t finished_at = 0;
  int32_t exit_code = 0;
  std::string reason;
  std::string message;
  std::string image = "registry.example/app:1.0";
  std::string image_ref = "sha256:0d1c3b2a";
  Labels labels;
  Labels annotations;
};

struct PodRecord {
  std::string uid;
  std::string name;
  std::string pod_namespace;
  int ordinal = 0;  // creation order; scenarios select "the first K pods" by it
  std::vector<std::string> sandbox_ids;    // oldest first
  std::vector<std::string> container_ids;  // creation order
};

enum class EventKind { Created, Started, Stopped, Deleted };

// A state change, with the pod as it is right after the change (what
// GetContainerEvents sends as pod_sandbox_status + containers_statuses).
struct ModelEvent {
  EventKind kind = EventKind::Created;
  std::string container_id;  // a container, or the sandbox for sandbox events
  int64_t created_at = 0;
  std::optional<SandboxRecord> sandbox;
  std::vector<ContainerRecord> containers;
};

struct SandboxQuery {
  std::string id;  // exact or prefix
  std::optional<SandboxState> state;
  Labels label_selector;
};

struct ContainerQuery {
  std::string id;  // exact or prefix
  std::optional<ContainerState> state;
  std::string sandbox_id;
  Labels label_selector;
};

struct NodeSummary {
  size_t pods = 0;
  size_t sandboxes_ready = 0;
  size_t sandboxes_notready = 0;
  size_t containers[4] = {0, 0, 0, 0};  // by ContainerState
  uint64_t events[4] = {0, 0, 0, 0};    // by EventKind, since start
};

// Outcome of a mutating call: ok, or why not (mapped to NOT_FOUND etc.).
struct MutationResult {
  enum class Error { None, NotFound, InvalidArgument, FailedPrecondition };
  Error error = Error::None;
  std::string message;
  std::string id;  // the created object's id
  bool ok() const { return error == Error::None; }
};

// Labels the kubelet puts on sandboxes and containers.
inline constexpr const char* kPodUidLabel = "io.kubernetes.pod.uid";
inline constexpr const char* kPodNameLabel = "io.kubernetes.pod.name";
inline constexpr const char* kPodNamespaceLabel = "io.kubernetes.pod.namespace";
inline constexpr const char* kContainerNameLabel = "io.kubernetes.container.name";

class SimulatedNode {
 public:
  using EventSink = std::function<void(const ModelEvent&)>;

  // Populates the node described by `shape` (no events for the initial state).
  SimulatedNode(const NodeShape& shape, const Clock& clock, uint64_t seed);

  void set_event_sink(EventSink sink);
  void set_churn(const ChurnSpec& churn);

  // Advances churn from the previous tick to clock.now().
  void tick();

  // Queries: call `fn` for each match with the mutex held; return the count.
  size_t visit_sandboxes(const SandboxQuery& q, const std::function<void(const SandboxRecord&)>& fn) const;
  size_t visit_containers(const ContainerQuery& q, const std::function<void(const ContainerRecord&)>& fn) const;
  std::optional<SandboxRecord> sandbox(const std::string& id) const;
  std::optional<ContainerRecord> container(const std::string& id) const;
  // Containers of the sandbox's pod that belong to that sandbox.
  std::vector<ContainerRecord> sandbox_containers(const std::string& sandbox_id) const;

  // Ordinal of the pod a call is aimed at (for pod-targeted error injection).
  std::optional<int> pod_ordinal_of_sandbox(const std::string& sandbox_id) const;
  std::optional<int> pod_ordinal_of_container(const std::string& container_id) const;
  std::optional<int> pod_ordinal_of_uid(const std::string& pod_uid) const;

  NodeSummary summary() const;
  std::vector<PodRecord> pods() const;  // ordered by ordinal

  // CRI mutations (minimal, for tests) and control-endpoint actions.
  MutationResult run_pod_sandbox(const std::string& uid, const std::string& name, const std::string& ns,
                                 uint32_t attempt, const Labels& labels, const Labels& annotations);
  MutationResult stop_pod_sandbox(const std::string& sandbox_id);
  MutationResult remove_pod_sandbox(const std::string& sandbox_id);
  MutationResult create_container(const std::string& sandbox_id, const std::string& name, uint32_t attempt,
                                  const std::string& image, const Labels& labels, const Labels& annotations);
  MutationResult start_container(const std::string& container_id);
  MutationResult stop_container(const std::string& container_id, int32_t exit_code, const std::string& reason);
  MutationResult remove_container(const std::string& container_id);
  // Makes running containers die; restart=true starts a new attempt of each.
  // Returns how many died.
  size_t kill_container(const std::string& container_id, int32_t exit_code, bool restart);
  size_t kill_pod(const std::string& pod_uid, int32_t exit_code, bool restart);

 private:
  // All helpers expect mu_ held.
  std::string new_id();
  std::string new_uid();
  int64_t now_ns() const;
  PodRecord& add_pod(int ordinal, int64_t created_at, bool emit);
  SandboxRecord& add_sandbox(PodRecord& pod, uint32_t attempt, int64_t created_at, const Labels& extra_labels,
                             const Labels& annotations, bool emit);
  ContainerRecord& add_container(PodRecord& pod, const SandboxRecord& sb, const std::string& name, uint32_t attempt,
                                 int64_t created_at, const Labels* labels, bool emit);
  void start(ContainerRecord& c, int64_t at, bool emit);
  void finish(ContainerRecord& c, int64_t at, int32_t exit_code, const std::string& reason, bool emit);
  void erase_container(const std::string& id, bool emit);
  void erase_pod(const std::string& uid);
  void emit(EventKind kind, const std::string& object_id, const std::string& sandbox_id, int64_t at);
  bool container_matches(const ContainerRecord& c, const ContainerQuery& q) const;
  size_t kill_locked(ContainerRecord& c, int32_t exit_code, bool restart, int64_t at);
  void crash_one(int64_t at);
  void add_exited_one(int64_t at);
  void create_pod_one(int64_t at);
  void delete_pod_one();
  void gc_exited(PodRecord& pod, const std::string& name);
  void remove_oldest_exited(PodRecord& pod, int keep, const std::function<bool(const ContainerRecord&)>& of_kind);
  bool pod_has_uid_label(int ordinal) const;
  std::string container_name(int index) const;

  mutable std::mutex mu_;
  const Clock& clock_;
  NodeShape shape_;
  std::mt19937_64 rng_;
  EventSink sink_;
  ChurnSpec churn_;
  TimePoint last_tick_;
  double crash_budget_ = 0, exited_budget_ = 0, create_budget_ = 0, delete_budget_ = 0;
  size_t crash_cursor_ = 0, exited_cursor_ = 0;
  int next_ordinal_ = 0;
  uint64_t pile_seq_ = 0;
  uint64_t events_[4] = {0, 0, 0, 0};

  std::map<int, std::string> pods_by_ordinal_;  // ordinal -> uid
  std::unordered_map<std::string, PodRecord> pods_;  // by uid
  std::unordered_map<std::string, SandboxRecord> sandboxes_;  // by id
  std::unordered_map<std::string, ContainerRecord> containers_;  // by id
};

}  // namespace fakecri
