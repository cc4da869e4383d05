// Issue 17: how the report names a pod and what a blocked task's wchan means.
#include <algorithm>

#include "report/wording.h"

namespace plegscope {
namespace {

std::string short_id(const std::string& id) { return id.size() > 12 ? id.substr(0, 12) : id; }

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

std::string pod_words(const PodRef& pod) {
  std::vector<std::string> ids;
  if (!pod.uid.empty()) ids.push_back("uid " + pod.uid);
  if (!pod.sandbox_id.empty()) ids.push_back("sandbox " + short_id(pod.sandbox_id));
  if (!pod.container_name.empty()) ids.push_back("container " + pod.container_name);
  std::string joined;
  for (size_t i = 0; i < ids.size(); ++i) joined += (i ? ", " : "") + ids[i];
  if (pod.name.empty()) return joined.empty() ? "an unknown pod" : "the pod with " + joined;
  return pod.namespace_ + "/" + pod.name + (joined.empty() ? "" : " (" + joined + ")");
}

std::string pods_words(const std::vector<PodRef>& pods, size_t named) {
  std::string out;
  const size_t n = std::min(named, pods.size());
  for (size_t i = 0; i < n; ++i) {
    if (i) out += i + 1 == n && pods.size() == n ? " and " : ", ";
    out += pod_words(pods[i]);
  }
  if (pods.size() > n) out += " and " + text::count(static_cast<long>(pods.size() - n), "more pod", "more pods");
  return out;
}

std::string wchan_meaning(const std::string& w) {
  if (w.empty() || w == "0") return "";
  if (has(w, "nfs") || has(w, "rpc_") || has(w, "rpc") || has(w, "cifs") || has(w, "ceph"))
    return "remote storage (NFS or another network filesystem) not answering";
  if (has(w, "zap_pid_ns_processes")) return "a pid namespace that cannot die (a process in it will not exit)";
  if (has(w, "ovl_") || has(w, "overlay") || has(w, "jbd2") || has(w, "ext4") || has(w, "xfs") ||
      has(w, "btrfs") || has(w, "sync") || has(w, "writeback") || has(w, "wait_on_page") ||
      has(w, "folio_wait") || has(w, "io_schedule") || has(w, "blk_") || has(w, "umount") ||
      has(w, "unmount") || has(w, "vfs_") || has(w, "d_alloc") || has(w, "lookup"))
    return "a disk or unmount stall (the filesystem under the container is blocked)";
  if (has(w, "cgroup")) return "a cgroup operation that does not finish";
  return "";
}

}  // namespace plegscope
