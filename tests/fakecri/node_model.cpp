#include "node_model.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace fakecri {

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr const char* kJobPrefix = "job-";

bool labels_match(const Labels& have, const Labels& want) {
  for (const auto& [k, v] : want) {
    auto it = have.find(k);
    if (it == have.end() || it->second != v) return false;
  }
  return true;
}

bool id_matches(const std::string& id, const std::string& want) {
  return want.empty() || id.compare(0, want.size(), want) == 0;
}

void erase_value(std::vector<std::string>& ids, const std::string& id) {
  ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
}

}  // namespace

const char* state_name(ContainerState s) {
  switch (s) {
    case ContainerState::Created: return "created";
    case ContainerState::Running: return "running";
    case ContainerState::Exited: return "exited";
    case ContainerState::Unknown: break;
  }
  return "unknown";
}

SimulatedNode::SimulatedNode(const NodeShape& shape, const Clock& clock, uint64_t seed)
    : clock_(clock), shape_(shape), rng_(seed), last_tick_(clock.now()) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = now_ns();
  const int64_t max_age = std::max<int64_t>(shape_.initial_age.count(), kSecond);
  const int names = std::max(1, shape_.containers_per_pod);
  for (int i = 0; i < shape_.pods; ++i) {
    const int64_t pod_created = now - max_age + static_cast<int64_t>(rng_() % static_cast<uint64_t>(max_age / 2 + 1));
    PodRecord& pod = add_pod(next_ordinal_++, pod_created, /*emit=*/false);
    const SandboxRecord& sb = sandboxes_.at(pod.sandbox_ids.back());
    // Exited attempts are spread over the names; the running attempt of each
    // name comes after them, as after restarts.
    std::vector<int> exited(names, 0);
    for (int k = 0; k < shape_.exited_per_pod; ++k) ++exited[k % names];
    for (int n = 0; n < names; ++n) {
      const int64_t span = now - pod_created;
      const int64_t step = span / (exited[n] + 2);
      for (int a = 0; a < exited[n]; ++a) {
        ContainerRecord& c = add_container(pod, sb, container_name(n), a, pod_created + a * step, nullptr, false);
        start(c, c.created_at + step / 10, false);
        bool failed = rng_() % 10 < 7;
        finish(c, c.created_at + step * 9 / 10, failed ? 1 : 0, failed ? "Error" : "Completed", false);
      }
      if (n < shape_.containers_per_pod) {
        ContainerRecord& c = add_container(pod, sb, container_name(n), exited[n],
                                           pod_created + exited[n] * step, nullptr, false);
        start(c, c.created_at + step / 10, false);
      }
    }
  }
}

void SimulatedNode::set_event_sink(EventSink sink) {
  std::lock_guard<std::mutex> lock(mu_);
  sink_ = std::move(sink);
}

void SimulatedNode::set_churn(const ChurnSpec& churn) {
  std::lock_guard<std::mutex> lock(mu_);
  churn_ = churn;
}

void SimulatedNode::tick() {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = clock_.now();
  // A stalled ticker must not release a burst of minutes' worth of churn.
  const double dt = std::clamp(to_seconds(now - last_tick_), 0.0, 5.0);
  last_tick_ = now;
  const int64_t at = now_ns();
  auto run = [&](double& budget, double rate, auto&& step) {
    if (rate <= 0) {
      budget = 0;
      return;
    }
    budget += rate * dt;
    while (budget >= 1.0) {
      budget -= 1.0;
      step();
    }
  };
  run(crash_budget_, churn_.crashloop_pods > 0 ? churn_.crashloop_restarts_per_second : 0, [&] { crash_one(at); });
  run(exited_budget_, churn_.exited_per_second, [&] { add_exited_one(at); });
  run(create_budget_, churn_.pods_created_per_second, [&] { create_pod_one(at); });
  run(delete_budget_, churn_.pods_deleted_per_second, [&] { delete_pod_one(); });
}

// ---- queries ---------------------------------------------------------------

size_t SimulatedNode::visit_sandboxes(const SandboxQuery& q,
                                      const std::function<void(const SandboxRecord&)>& fn) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  auto consider = [&](const SandboxRecord& sb) {
    if (!id_matches(sb.id, q.id)) return;
    if (q.state && sb.state != *q.state) return;
    if (!labels_match(sb.labels, q.label_selector)) return;
    fn(sb);
    ++n;
  };
  if (!q.id.empty() && sandboxes_.count(q.id)) {
    consider(sandboxes_.at(q.id));
    return n;
  }
  auto uid = q.label_selector.find(kPodUidLabel);
  if (q.id.empty() && uid != q.label_selector.end()) {
    auto pod = pods_.find(uid->second);
    if (pod != pods_.end()) {
      for (const auto& id : pod->second.sandbox_ids) consider(sandboxes_.at(id));
    }
    // Sandboxes whose uid label disagrees with their pod are not indexed here;
    // the model never creates them (RunPodSandbox takes the uid from metadata).
    return n;
  }
  for (const auto& [ordinal, pod_uid] : pods_by_ordinal_) {
    for (const auto& id : pods_.at(pod_uid).sandbox_ids) consider(sandboxes_.at(id));
  }
  return n;
}

bool SimulatedNode::container_matches(const ContainerRecord& c, const ContainerQuery& q) const {
  return id_matches(c.id, q.id) && (!q.state || c.state == *q.state) &&
         (q.sandbox_id.empty() || c.sandbox_id == q.sandbox_id) && labels_match(c.labels, q.label_selector);
}

size_t SimulatedNode::visit_containers(const ContainerQuery& q,
                                       const std::function<void(const ContainerRecord&)>& fn) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  auto consider = [&](const ContainerRecord& c) {
    if (!container_matches(c, q)) return;
    fn(c);
    ++n;
  };
  if (!q.id.empty() && containers_.count(q.id)) {
    consider(containers_.at(q.id));
    return n;
  }
  // Narrow by pod first: the kubelet's per-pod inspection filters by the
  // pod-uid label (or sandbox id), and must stay cheap on a 10k-container node.
  const PodRecord* pod = nullptr;
  auto uid = q.label_selector.find(kPodUidLabel);
  if (q.id.empty() && uid != q.label_selector.end()) {
    auto it = pods_.find(uid->second);
    if (it == pods_.end()) return 0;
    pod = &it->second;
  } else if (q.id.empty() && !q.sandbox_id.empty()) {
    auto sb = sandboxes_.find(q.sandbox_id);
    if (sb == sandboxes_.end()) return 0;
    pod = &pods_.at(sb->second.pod_uid);
  }
  if (pod != nullptr) {
    for (const auto& id : pod->container_ids) consider(containers_.at(id));
    return n;
  }
  for (const auto& [ordinal, pod_uid] : pods_by_ordinal_) {
    for (const auto& id : pods_.at(pod_uid).container_ids) consider(containers_.at(id));
  }
  return n;
}

std::optional<SandboxRecord> SimulatedNode::sandbox(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sandboxes_.find(id);
  if (it == sandboxes_.end()) return std::nullopt;
  return it->second;
}

std::optional<ContainerRecord> SimulatedNode::container(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.find(id);
  if (it == containers_.end()) return std::nullopt;
  return it->second;
}

std::vector<ContainerRecord> SimulatedNode::sandbox_containers(const std::string& sandbox_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ContainerRecord> out;
  auto sb = sandboxes_.find(sandbox_id);
  if (sb == sandboxes_.end()) return out;
  for (const auto& id : pods_.at(sb->second.pod_uid).container_ids) {
    const auto& c = containers_.at(id);
    if (c.sandbox_id == sandbox_id) out.push_back(c);
  }
  return out;
}

std::optional<int> SimulatedNode::pod_ordinal_of_sandbox(const std::string& sandbox_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto sb = sandboxes_.find(sandbox_id);
  if (sb == sandboxes_.end()) return std::nullopt;
  return pods_.at(sb->second.pod_uid).ordinal;
}

std::optional<int> SimulatedNode::pod_ordinal_of_container(const std::string& container_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = containers_.find(container_id);
  if (c == containers_.end()) return std::nullopt;
  return pods_.at(c->second.pod_uid).ordinal;
}

std::optional<int> SimulatedNode::pod_ordinal_of_uid(const std::string& pod_uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(pod_uid);
  if (it == pods_.end()) return std::nullopt;
  return it->second.ordinal;
}

NodeSummary SimulatedNode::summary() const {
  std::lock_guard<std::mutex> lock(mu_);
  NodeSummary s;
  s.pods = pods_.size();
  for (const auto& [id, sb] : sandboxes_) {
    (sb.state == SandboxState::Ready ? s.sandboxes_ready : s.sandboxes_notready)++;
  }
  for (const auto& [id, c] : containers_) s.containers[static_cast<int>(c.state)]++;
  std::copy(std::begin(events_), std::end(events_), std::begin(s.events));
  return s;
}

std::vector<PodRecord> SimulatedNode::pods() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PodRecord> out;
  out.reserve(pods_.size());
  for (const auto& [ordinal, uid] : pods_by_ordinal_) out.push_back(pods_.at(uid));
  return out;
}

// ---- mutations -----------------------------------------------------------------

MutationResult SimulatedNode::run_pod_sandbox(const std::string& uid, const std::string& name, const std::string& ns,
                                              uint32_t attempt, const Labels& labels, const Labels& annotations) {
  std::lock_guard<std::mutex> lock(mu_);
  if (uid.empty() || name.empty()) {
    return {MutationResult::Error::InvalidArgument, "sandbox metadata needs uid and name", ""};
  }
  auto it = pods_.find(uid);
  if (it == pods_.end()) {
    PodRecord pod;
    pod.uid = uid;
    pod.name = name;
    pod.pod_namespace = ns;
    pod.ordinal = next_ordinal_++;
    pods_by_ordinal_[pod.ordinal] = uid;
    it = pods_.emplace(uid, std::move(pod)).first;
  }
  const SandboxRecord& sb = add_sandbox(it->second, attempt, now_ns(), labels, annotations, true);
  return {MutationResult::Error::None, "", sb.id};
}

MutationResult SimulatedNode::stop_pod_sandbox(const std::string& sandbox_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sandboxes_.find(sandbox_id);
  if (it == sandboxes_.end()) return {MutationResult::Error::NotFound, "sandbox " + sandbox_id + " not found", ""};
  const int64_t at = now_ns();
  for (const auto& id : pods_.at(it->second.pod_uid).container_ids) {
    auto& c = containers_.at(id);
    if (c.sandbox_id == sandbox_id && c.state == ContainerState::Running) finish(c, at, 137, "Error", true);
  }
  if (it->second.state == SandboxState::Ready) {
    it->second.state = SandboxState::NotReady;
    emit(EventKind::Stopped, sandbox_id, sandbox_id, at);
  }
  return {};
}

MutationResult SimulatedNode::remove_pod_sandbox(const std::string& sandbox_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sandboxes_.find(sandbox_id);
  if (it == sandboxes_.end()) return {};  // CRI: removing a missing sandbox succeeds
  if (it->second.state == SandboxState::Ready) {
    return {MutationResult::Error::FailedPrecondition, "sandbox " + sandbox_id + " is still ready", ""};
  }
  const std::string uid = it->second.pod_uid;
  PodRecord& pod = pods_.at(uid);
  std::vector<std::string> doomed;
  for (const auto& id : pod.container_ids) {
    if (containers_.at(id).sandbox_id == sandbox_id) doomed.push_back(id);
  }
  for (const auto& id : doomed) erase_container(id, true);
  const int64_t at = now_ns();
  emit(EventKind::Deleted, sandbox_id, sandbox_id, at);  // sandbox still present: status is sent
  sandboxes_.erase(it);
  erase_value(pod.sandbox_ids, sandbox_id);
  if (pod.sandbox_ids.empty() && pod.container_ids.empty()) erase_pod(uid);
  return {};
}

MutationResult SimulatedNode::create_container(const std::string& sandbox_id, const std::string& name,
                                               uint32_t attempt, const std::string& image, const Labels& labels,
                                               const Labels& annotations) {
  std::lock_guard<std::mutex> lock(mu_);
  auto sb = sandboxes_.find(sandbox_id);
  if (sb == sandboxes_.end()) return {MutationResult::Error::NotFound, "sandbox " + sandbox_id + " not found", ""};
  if (sb->second.state != SandboxState::Ready) {
    return {MutationResult::Error::FailedPrecondition, "sandbox " + sandbox_id + " is not ready", ""};
  }
  if (name.empty()) return {MutationResult::Error::InvalidArgument, "container metadata needs a name", ""};
  ContainerRecord& c = add_container(pods_.at(sb->second.pod_uid), sb->second, name, attempt, now_ns(), &labels, true);
  if (!image.empty()) c.image = image;
  for (const auto& [k, v] : annotations) c.annotations[k] = v;
  return {MutationResult::Error::None, "", c.id};
}

MutationResult SimulatedNode::start_container(const std::string& container_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return {MutationResult::Error::NotFound, "container " + container_id + " not found", ""};
  if (it->second.state != ContainerState::Created) {
    return {MutationResult::Error::FailedPrecondition,
            std::string("container is ") + state_name(it->second.state) + ", not created", ""};
  }
  start(it->second, now_ns(), true);
  return {};
}

MutationResult SimulatedNode::stop_container(const std::string& container_id, int32_t exit_code,
                                             const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return {MutationResult::Error::NotFound, "container " + container_id + " not found", ""};
  if (it->second.state == ContainerState::Running || it->second.state == ContainerState::Created) {
    finish(it->second, now_ns(), exit_code, reason, true);
  }
  return {};
}

MutationResult SimulatedNode::remove_container(const std::string& container_id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return {};
  if (it->second.state == ContainerState::Running) {
    return {MutationResult::Error::FailedPrecondition, "container " + container_id + " is running", ""};
  }
  erase_container(container_id, true);
  return {};
}

size_t SimulatedNode::kill_container(const std::string& container_id, int32_t exit_code, bool restart) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return 0;
  return kill_locked(it->second, exit_code, restart, now_ns());
}

size_t SimulatedNode::kill_pod(const std::string& pod_uid, int32_t exit_code, bool restart) {
  std::lock_guard<std::mutex> lock(mu_);
  auto pod = pods_.find(pod_uid);
  if (pod == pods_.end()) return 0;
  const std::vector<std::string> ids = pod->second.container_ids;  // restarts append
  const int64_t at = now_ns();
  size_t n = 0;
  for (const auto& id : ids) n += kill_locked(containers_.at(id), exit_code, restart, at);
  return n;
}

// ---- helpers (mu_ held) ------------------------------------------------------

std::string SimulatedNode::new_id() {
  char buf[65];
  for (int i = 0; i < 4; ++i) std::snprintf(buf + 16 * i, 17, "%016llx", static_cast<unsigned long long>(rng_()));
  return std::string(buf, 64);
}

std::string SimulatedNode::new_uid() {
  const uint64_t a = rng_(), b = rng_();
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-4%03llx-8%03llx-%012llx",
                static_cast<unsigned long long>(a >> 32), static_cast<unsigned long long>((a >> 16) & 0xffff),
                static_cast<unsigned long long>(a & 0xfff), static_cast<unsigned long long>((b >> 48) & 0xfff),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

int64_t SimulatedNode::now_ns() const { return unix_nanos(clock_.now()); }

std::string SimulatedNode::container_name(int index) const {
  static const char* kNames[] = {"app", "sidecar", "logger", "proxy"};
  if (index < 4) return kNames[index];
  return "c" + std::to_string(index);
}

bool SimulatedNode::pod_has_uid_label(int ordinal) const {
  return ordinal < shape_.pods - shape_.unlabeled_pods;
}

PodRecord& SimulatedNode::add_pod(int ordinal, int64_t created_at, bool emit_events) {
  PodRecord pod;
  pod.uid = new_uid();
  pod.name = shape_.pod_name_prefix + "-" + std::to_string(ordinal);
  pod.pod_namespace = shape_.namespaces[static_cast<size_t>(ordinal) % shape_.namespaces.size()];
  pod.ordinal = ordinal;
  pods_by_ordinal_[ordinal] = pod.uid;
  PodRecord& stored = pods_.emplace(pod.uid, std::move(pod)).first->second;
  add_sandbox(stored, 0, created_at, {}, {}, emit_events);
  return stored;
}

SandboxRecord& SimulatedNode::add_sandbox(PodRecord& pod, uint32_t attempt, int64_t created_at,
                                          const Labels& extra_labels, const Labels& annotations, bool emit_events) {
  SandboxRecord sb;
  sb.id = new_id();
  sb.pod_uid = pod.uid;
  sb.pod_name = pod.name;
  sb.pod_namespace = pod.pod_namespace;
  sb.attempt = attempt;
  sb.created_at = created_at;
  sb.labels = extra_labels;
  sb.labels[kPodUidLabel] = pod.uid;
  sb.labels[kPodNameLabel] = pod.name;
  sb.labels[kPodNamespaceLabel] = pod.pod_namespace;
  sb.labels["io.kubernetes.container.name"] = "POD";
  sb.annotations = annotations;
  pod.sandbox_ids.push_back(sb.id);
  SandboxRecord& stored = sandboxes_.emplace(sb.id, std::move(sb)).first->second;
  if (emit_events) {
    emit(EventKind::Created, stored.id, stored.id, created_at);
    emit(EventKind::Started, stored.id, stored.id, created_at);
  }
  return stored;
}

ContainerRecord& SimulatedNode::add_container(PodRecord& pod, const SandboxRecord& sb, const std::string& name,
                                              uint32_t attempt, int64_t created_at, const Labels* labels,
                                              bool emit_events) {
  ContainerRecord c;
  c.id = new_id();
  c.sandbox_id = sb.id;
  c.pod_uid = pod.uid;
  c.name = name;
  c.attempt = attempt;
  c.state = ContainerState::Created;
  c.created_at = created_at;
  if (labels != nullptr) {
    c.labels = *labels;  // as the caller (kubelet) sent them
  } else {
    if (pod_has_uid_label(pod.ordinal)) c.labels[kPodUidLabel] = pod.uid;
    c.labels[kPodNameLabel] = pod.name;
    c.labels[kPodNamespaceLabel] = pod.pod_namespace;
    c.labels[kContainerNameLabel] = name;
  }
  c.annotations["io.kubernetes.container.restartCount"] = std::to_string(attempt);
  c.annotations["io.kubernetes.container.hash"] = "5e1c6a2b";
  pod.container_ids.push_back(c.id);
  ContainerRecord& stored = containers_.emplace(c.id, std::move(c)).first->second;
  if (emit_events) emit(EventKind::Created, stored.id, stored.sandbox_id, created_at);
  return stored;
}

void SimulatedNode::start(ContainerRecord& c, int64_t at, bool emit_events) {
  c.state = ContainerState::Running;
  c.started_at = at;
  c.reason.clear();
  if (emit_events) emit(EventKind::Started, c.id, c.sandbox_id, at);
}

void SimulatedNode::finish(ContainerRecord& c, int64_t at, int32_t exit_code, const std::string& reason,
                           bool emit_events) {
  c.state = ContainerState::Exited;
  c.finished_at = at;
  c.exit_code = exit_code;
  c.reason = reason;
  if (emit_events) emit(EventKind::Stopped, c.id, c.sandbox_id, at);
}

void SimulatedNode::erase_container(const std::string& id, bool emit_events) {
  auto it = containers_.find(id);
  if (it == containers_.end()) return;
  const std::string sandbox_id = it->second.sandbox_id;
  erase_value(pods_.at(it->second.pod_uid).container_ids, id);
  containers_.erase(it);
  if (emit_events) emit(EventKind::Deleted, id, sandbox_id, now_ns());
}

void SimulatedNode::erase_pod(const std::string& uid) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  pods_by_ordinal_.erase(it->second.ordinal);
  pods_.erase(it);
}

void SimulatedNode::emit(EventKind kind, const std::string& object_id, const std::string& sandbox_id, int64_t at) {
  events_[static_cast<int>(kind)]++;
  if (!sink_) return;
  ModelEvent e;
  e.kind = kind;
  e.container_id = object_id;
  e.created_at = at;
  auto sb = sandboxes_.find(sandbox_id);
  if (sb != sandboxes_.end()) {
    e.sandbox = sb->second;
    for (const auto& id : pods_.at(sb->second.pod_uid).container_ids) {
      const auto& c = containers_.at(id);
      if (c.sandbox_id == sandbox_id) e.containers.push_back(c);
    }
  }
  sink_(e);
}

size_t SimulatedNode::kill_locked(ContainerRecord& c, int32_t exit_code, bool restart, int64_t at) {
  if (c.state != ContainerState::Running) return 0;
  finish(c, at, exit_code, exit_code == 0 ? "Completed" : "Error", true);
  if (restart) {
    PodRecord& pod = pods_.at(c.pod_uid);
    const SandboxRecord& sb = sandboxes_.at(c.sandbox_id);
    uint32_t attempt = 0;
    for (const auto& id : pod.container_ids) {
      const auto& other = containers_.at(id);
      if (other.name == c.name) attempt = std::max(attempt, other.attempt + 1);
    }
    const Labels labels = c.labels;
    const std::string name = c.name;  // `c` may not outlive the insert below
    ContainerRecord& next = add_container(pod, sb, name, attempt, at, &labels, true);
    start(next, at, true);
  }
  return 1;
}

void SimulatedNode::crash_one(int64_t at) {
  // Round-robin over the crash-looping pods (ordinal < crashloop_pods).
  auto it = pods_by_ordinal_.lower_bound(static_cast<int>(crash_cursor_));
  if (it == pods_by_ordinal_.end() || it->first >= churn_.crashloop_pods) it = pods_by_ordinal_.begin();
  if (it == pods_by_ordinal_.end() || it->first >= churn_.crashloop_pods) return;
  crash_cursor_ = static_cast<size_t>(it->first) + 1;
  PodRecord& pod = pods_.at(it->second);
  if (pod.sandbox_ids.empty()) return;
  const SandboxRecord& sb = sandboxes_.at(pod.sandbox_ids.back());
  if (sb.state != SandboxState::Ready) return;
  const std::string name = container_name(0);
  ContainerRecord* victim = nullptr;
  for (const auto& id : pod.container_ids) {
    auto& c = containers_.at(id);
    if (c.name == name && c.sandbox_id == sb.id && c.state == ContainerState::Running) victim = &c;
  }
  if (victim != nullptr) {
    kill_locked(*victim, 1, /*restart=*/true, at);
  } else {
    // Killed from outside and not restarted: start the next attempt.
    uint32_t attempt = 0;
    for (const auto& id : pod.container_ids) {
      const auto& c = containers_.at(id);
      if (c.name == name) attempt = std::max(attempt, c.attempt + 1);
    }
    ContainerRecord& next = add_container(pod, sb, name, attempt, at, nullptr, true);
    start(next, at, true);
  }
  gc_exited(pod, name);
}

void SimulatedNode::gc_exited(PodRecord& pod, const std::string& name) {
  remove_oldest_exited(pod, churn_.keep_exited_attempts, [&](const ContainerRecord& c) { return c.name == name; });
}

void SimulatedNode::remove_oldest_exited(PodRecord& pod, int keep,
                                         const std::function<bool(const ContainerRecord&)>& of_kind) {
  if (keep < 0) return;
  // container_ids is in creation order, so the first exited ones are the oldest.
  std::vector<std::string> exited;
  for (const auto& id : pod.container_ids) {
    const auto& c = containers_.at(id);
    if (c.state == ContainerState::Exited && of_kind(c)) exited.push_back(id);
  }
  if (exited.size() <= static_cast<size_t>(keep)) return;
  exited.resize(exited.size() - static_cast<size_t>(keep));
  for (const auto& id : exited) erase_container(id, true);
}

void SimulatedNode::add_exited_one(int64_t at) {
  if (pods_by_ordinal_.empty()) return;
  auto it = pods_by_ordinal_.lower_bound(static_cast<int>(exited_cursor_));
  if (it == pods_by_ordinal_.end()) it = pods_by_ordinal_.begin();
  exited_cursor_ = static_cast<size_t>(it->first) + 1;
  PodRecord& pod = pods_.at(it->second);
  if (pod.sandbox_ids.empty()) return;
  const SandboxRecord& sb = sandboxes_.at(pod.sandbox_ids.back());
  ContainerRecord& c = add_container(pod, sb, kJobPrefix + std::to_string(pile_seq_++), 0, at - 2 * kSecond, nullptr, true);
  start(c, at - kSecond, true);
  finish(c, at, 0, "Completed", true);
  remove_oldest_exited(pod, churn_.keep_exited_jobs_per_pod,
                       [](const ContainerRecord& job) { return job.name.rfind(kJobPrefix, 0) == 0; });
}

void SimulatedNode::create_pod_one(int64_t at) {
  PodRecord& pod = add_pod(next_ordinal_++, at, /*emit=*/true);
  const SandboxRecord& sb = sandboxes_.at(pod.sandbox_ids.back());
  for (int n = 0; n < shape_.containers_per_pod; ++n) {
    ContainerRecord& c = add_container(pod, sb, container_name(n), 0, at, nullptr, true);
    start(c, at, true);
  }
}

void SimulatedNode::delete_pod_one() {
  // The oldest pod that is not crash-looping: a rollout replaces old pods.
  auto it = pods_by_ordinal_.lower_bound(churn_.crashloop_pods);
  if (it == pods_by_ordinal_.end()) return;
  const std::string uid = it->second;
  const int64_t at = now_ns();
  PodRecord& pod = pods_.at(uid);
  for (const auto& id : pod.container_ids) {
    auto& c = containers_.at(id);
    if (c.state == ContainerState::Running || c.state == ContainerState::Created) finish(c, at, 0, "Completed", true);
  }
  const std::vector<std::string> containers = pod.container_ids;
  for (const auto& id : containers) erase_container(id, true);
  const std::vector<std::string> sandboxes = pod.sandbox_ids;
  for (const auto& id : sandboxes) {
    auto& sb = sandboxes_.at(id);
    if (sb.state == SandboxState::Ready) {
      sb.state = SandboxState::NotReady;
      emit(EventKind::Stopped, id, id, at);
    }
    emit(EventKind::Deleted, id, id, at);
    sandboxes_.erase(id);
  }
  erase_pod(uid);
}

}  // namespace fakecri
