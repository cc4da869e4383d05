#include "pleg/pod_status_cache.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include "cri/list_wire.h"

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

using google::protobuf::internal::WireFormatLite;

constexpr int kSandboxField = 1;
constexpr int kContainerField = 2;

std::string pack(const PodStatus& status) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    for (const auto& s : status.sandboxes) write_message_field(kSandboxField, s, out);
    for (const auto& c : status.containers) write_message_field(kContainerField, c, out);
  }
  bytes.shrink_to_fit();
  return bytes;
}

}  // namespace

PodStatus PodStatusCache::unpack(const std::string& uid, const StoredPod& stored) {
  PodStatus status;
  status.uid = uid;
  status.name = stored.name;
  status.namespace_ = stored.namespace_;
  status.timestamp = stored.timestamp;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(stored.statuses.data()),
                                            static_cast<int>(stored.statuses.size()));
  // Written by pack() above: every field is one of the two.
  while (uint32_t tag = in.ReadTag()) {
    bool ok = WireFormatLite::GetTagFieldNumber(tag) == kSandboxField
                  ? WireFormatLite::ReadMessage(&in, &status.sandboxes.emplace_back())
                  : WireFormatLite::ReadMessage(&in, &status.containers.emplace_back());
    if (!ok) break;
  }
  return status;
}

bool PodStatusCache::set(PodStatus status) {
  keep_what_is_read(status);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pods_.find(status.uid);
  if (it != pods_.end() && it->second.timestamp > status.timestamp) return false;
  StoredPod& stored = pods_[status.uid];
  stored.name = std::move(status.name);
  stored.namespace_ = std::move(status.namespace_);
  stored.statuses = pack(status);
  stored.timestamp = status.timestamp;
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
  return unpack(it->first, it->second);
}

std::vector<PodStatus> PodStatusCache::snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PodStatus> out;
  out.reserve(pods_.size());
  for (const auto& [uid, stored] : pods_) out.push_back(unpack(uid, stored));
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
