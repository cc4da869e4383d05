#include "pleg/pod_status_cache.h"

namespace plegscope {
namespace {

// The cache holds every pod's status for as long as the pod lives: on a
// node of 10,000 containers, labels, annotations and the fields a runtime
// sends beyond our CRI subset (kept by protobuf as unknown fields: mounts,
// resources, the sandbox's Linux spec...) are most of its size, and nothing
// reads them from the cache (pods are grouped from the list answers).
void keep_what_is_read(PodStatus& status) {
  for (auto& s : status.sandboxes) {
    s.clear_labels();
    s.clear_annotations();
    s.DiscardUnknownFields();
  }
  for (auto& c : status.containers) {
    c.clear_labels();
    c.clear_annotations();
    c.clear_log_path();
    if (c.has_image()) c.mutable_image()->clear_annotations();
    c.DiscardUnknownFields();
  }
}

}  // namespace

bool PodStatusCache::set(PodStatus status) {
  keep_what_is_read(status);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(status.uid);
  if (it != pods_.end() && it->second.timestamp > status.timestamp) return false;
  std::string uid = status.uid;
  pods_[uid] = std::move(status);
  return true;
}

void PodStatusCache::remove(const std::string& uid) {
  std::lock_guard<std::mutex> lock(mu_);
  pods_.erase(uid);
}

std::optional<PodStatus> PodStatusCache::get(const std::string& uid) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(uid);
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

std::vector<PodStatus> PodStatusCache::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PodStatus> out;
  out.reserve(pods_.size());
  for (const auto& [uid, status] : pods_) out.push_back(status);
  return out;
}

size_t PodStatusCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pods_.size();
}

void PodStatusCache::update_time(TimePoint t) {
  std::lock_guard<std::mutex> lock(mu_);
  time_ = t;
}

TimePoint PodStatusCache::time() const {
  std::lock_guard<std::mutex> lock(mu_);
  return time_;
}

}  // namespace plegscope
