// How the report names a pod and what a blocked task's wchan means.
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

std::string wchan_words(const std::string& wchan, host::WchanHidden hidden) {
  // The kernel prints a wchan only to a reader with ptrace access
  // (ptrace_may_access, PTRACE_MODE_READ_FSCREDS) and "0" to the others.
  if (hidden == host::WchanHidden::kNo && (wchan.empty() || wchan == "0"))
    hidden = wchan.empty() ? host::WchanHidden::kUnreadable : host::WchanHidden::kUnknownCredentials;
  static const std::string kGrant =
      "; CAP_SYS_PTRACE in the agent's container would show it, and the kernel's own hung-task report in the "
      "journal names the function without it";
  switch (hidden) {
    case host::WchanHidden::kNo: {
      const std::string meaning = wchan_meaning(wchan);
      return "in " + wchan + (meaning.empty() ? " (meaning unknown)" : ", usually " + meaning);
    }
    case host::WchanHidden::kMissingCapabilities:
      return "at a kernel function hidden from plegscope (wchan reads 0: the kernel shows it only to a reader with "
             "ptrace access, and this process holds capabilities that plegscope, without CAP_SYS_PTRACE, lacks" +
             kGrant + ")";
    case host::WchanHidden::kOtherUser:
      return "at a kernel function hidden from plegscope (wchan reads 0: the kernel shows it only to a reader with "
             "ptrace access, and this process runs as another user than plegscope, which lacks CAP_SYS_PTRACE" +
             kGrant + ")";
    case host::WchanHidden::kDenied:
      return "at a kernel function hidden from plegscope (wchan reads 0 although plegscope's uid and capabilities "
             "allow the read: an LSM such as AppArmor's ptrace rules, or the process being non-dumpable, denies "
             "it; the kernel's hung-task report in the journal names the function)";
    case host::WchanHidden::kUnknownCredentials:
      return "at a kernel function hidden from plegscope (wchan reads 0, and the status files that would say why "
             "could not be read)";
    case host::WchanHidden::kUnreadable:
      return "at a kernel function plegscope could not read (its wchan file was unreadable: the task may have "
             "exited)";
  }
  return "";
}

}  // namespace plegscope
