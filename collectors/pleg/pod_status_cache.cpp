#include "pleg/pod_status_cache.h"

namespace plegscope {

bool PodStatusCache::set(PodStatus status) {
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
