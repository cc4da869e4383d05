#include "pleg/pod_directory.h"

#include <algorithm>

namespace plegscope {

void PodDirectory::remember(const RuntimePod& pod) {
  if (pod.uid.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  forget(pod.uid);
  Known known{pod.name, pod.namespace_, "", {}, true};
  // The running sandbox, else the last listed: the one status calls go to.
  for (const auto& s : pod.sandboxes)
    if (known.sandbox_id.empty() || s.state == RuntimeState::Running) known.sandbox_id = s.id;
  known.ids.reserve(pod.sandboxes.size() + pod.containers.size());
  for (const auto& s : pod.sandboxes) known.ids.push_back(s.id);
  for (const auto& c : pod.containers) known.ids.push_back(c.id);
  // The ids are indexed once they sit where they stay (the map's node).
  auto it = pods_.emplace(pod.uid, std::move(known)).first;
  const std::string* uid = &it->first;
  const std::vector<std::string>& ids = it->second.ids;
  size_t i = 0;
  for (size_t s = 0; s < pod.sandboxes.size(); ++s) index(ids[i++], {uid, "", true});
  for (const auto& c : pod.containers) index(ids[i++], {uid, c.name, false});
  order_.push_back(pod.uid);
  while (pods_.size() > max_pods_ && !order_.empty()) {
    std::string oldest = order_.front();
    forget(oldest);
  }
}

void PodDirectory::unlist(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end() || !it->second.listed) return;
  it->second.listed = false;
  unlisted_.push_back(uid);
  size_t still_unlisted = 0;
  for (const auto& u : unlisted_)
    if (auto p = pods_.find(u); p != pods_.end() && !p->second.listed) ++still_unlisted;
  while (still_unlisted > max_unlisted_ && !unlisted_.empty()) {
    std::string oldest = std::move(unlisted_.front());
    unlisted_.pop_front();
    if (auto p = pods_.find(oldest); p != pods_.end() && !p->second.listed) {
      forget(oldest);
      --still_unlisted;
    }
  }
  // Entries for pods listed again or forgotten are dropped as they reach the front.
  while (!unlisted_.empty()) {
    auto p = pods_.find(unlisted_.front());
    if (p != pods_.end() && !p->second.listed) break;
    unlisted_.pop_front();
  }
}

// The last pod to claim an id owns it; its key is re-made so that it views
// the owner's copy (an earlier owner may be forgotten first).
void PodDirectory::index(std::string_view id, IdEntry entry) {
  ids_.erase(id);
  ids_.emplace(id, std::move(entry));
}

void PodDirectory::forget(const std::string& uid) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  for (const auto& id : it->second.ids)
    if (auto e = ids_.find(id); e != ids_.end() && e->second.uid == &it->first) ids_.erase(e);
  pods_.erase(it);
  order_.erase(std::remove(order_.begin(), order_.end(), uid), order_.end());
}

std::optional<PodIdentity> PodDirectory::find(const CallTarget& target) const {
  if (target.empty() || target.id.empty()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  std::string uid = target.id;
  std::string container, sandbox;
  if (target.kind != CallTarget::Kind::kPodUid) {
    auto e = ids_.find(target.id);
    if (e == ids_.end()) return std::nullopt;
    uid = *e->second.uid;
    container = e->second.container_name;
    if (e->second.sandbox) sandbox = target.id;
  }
  auto p = pods_.find(uid);
  if (p == pods_.end()) return std::nullopt;
  return PodIdentity{uid, p->second.name, p->second.namespace_,
                     sandbox.empty() ? p->second.sandbox_id : sandbox, container, p->second.listed};
}

size_t PodDirectory::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

size_t PodDirectory::ids() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ids_.size();
}

}  // namespace plegscope
