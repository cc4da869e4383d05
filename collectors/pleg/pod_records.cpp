#include "pleg/pod_records.h"

#include <algorithm>
#include <set>

#include "pleg/transitions.h"

namespace plegscope {
namespace {

// Every container and sandbox id in either pod, each once, in a stable order.
std::vector<std::string> ids_in(const RuntimePod* a, const RuntimePod* b) {
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (const auto* pod : {a, b}) {
    if (!pod) continue;
    for (const auto* list : {&pod->containers, &pod->sandboxes})
      for (const auto& c : *list)
        if (seen.insert(c.id).second) ids.push_back(c.id);
  }
  return ids;
}

// The same ids in the same states, in any order.
bool same_pod(const RuntimePod& a, const RuntimePod& b) {
  auto same = [](const std::vector<RuntimeContainer>& x, const std::vector<RuntimeContainer>& y) {
    if (x.size() != y.size()) return false;
    for (const auto& c : x) {
      const auto it = std::find_if(y.begin(), y.end(), [&c](const RuntimeContainer& d) { return d.id == c.id; });
      if (it == y.end() || it->state != c.state) return false;
    }
    return true;
  };
  return same(a.containers, b.containers) && same(a.sandboxes, b.sandboxes);
}

}  // namespace

std::vector<std::string> PodRecords::set_current(const PodGrouping& grouping) {
  std::vector<std::string> changed;
  for (auto& [uid, rec] : records_) {
    rec.current.reset();
    rec.seen = false;
  }
  for (size_t i = 0; i < grouping.size(); ++i) {
    const PodView& view = grouping[i];
    uid_key_.assign(view.uid.data(), view.uid.size());
    auto it = records_.find(uid_key_);
    if (it == records_.end()) it = records_.emplace(uid_key_, Record{}).first;
    it->second.seen = true;
    if (it->second.old && same_state(view, *it->second.old)) continue;
    it->second.current = to_runtime_pod(view);
    changed.push_back(it->first);
  }
  for (auto it = records_.begin(); it != records_.end();) {
    if (it->second.seen) {
      ++it;
    } else if (!it->second.old) {
      it = records_.erase(it);  // neither old nor current: nothing left to compare
    } else {
      changed.push_back(it->first);  // gone from the runtime
      ++it;
    }
  }
  return changed;
}

bool PodRecords::set_current_pod(RuntimePod pod) {
  Record& rec = records_[pod.uid];
  rec.seen = true;
  if (rec.old && same_pod(pod, *rec.old)) {
    rec.current.reset();
    return false;
  }
  rec.current = std::move(pod);
  return true;
}

const RuntimePod* PodRecords::listed_pod(const std::string& uid) const {
  auto it = records_.find(uid);
  if (it == records_.end()) return nullptr;
  if (it->second.current) return &*it->second.current;
  return it->second.seen && it->second.old ? &*it->second.old : nullptr;
}

const RuntimePod* PodRecords::old_pod(const std::string& uid) const {
  auto it = records_.find(uid);
  return it != records_.end() && it->second.old ? &*it->second.old : nullptr;
}

const RuntimePod* PodRecords::current_pod(const std::string& uid) const {
  auto it = records_.find(uid);
  return it != records_.end() && it->second.current ? &*it->second.current : nullptr;
}

std::vector<PodLifecycleEvent> PodRecords::events_for(const std::string& uid, TimePoint seen) const {
  const RuntimePod* old_pod = this->old_pod(uid);
  const RuntimePod* new_pod = current_pod(uid);
  std::vector<PodLifecycleEvent> events;
  const RuntimePod* named = new_pod ? new_pod : old_pod;
  if (!named) return events;
  for (const auto& id : ids_in(old_pod, new_pod)) {
    for (auto& e : generate_events(uid, id, state_in(old_pod, id), state_in(new_pod, id))) {
      const RuntimeContainer* c = new_pod && new_pod->find(id) ? new_pod->find(id)
                                                               : (old_pod ? old_pod->find(id) : nullptr);
      e.time = seen;
      e.pod_name = named->name;
      e.pod_namespace = named->namespace_;
      e.container_name = c ? c->name : "";
      events.push_back(std::move(e));
    }
  }
  return events;
}

void PodRecords::update(const std::string& uid) {
  auto it = records_.find(uid);
  if (it == records_.end()) return;
  if (it->second.current) {
    it->second.old = std::move(it->second.current);
    it->second.current.reset();
  } else if (!it->second.seen) {
    records_.erase(it);
  }
}

}  // namespace plegscope
