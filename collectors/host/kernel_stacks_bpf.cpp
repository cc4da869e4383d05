// The libbpf adapter of --kernel-stacks: loads kernel_stacks.bpf.c (its
// skeleton is generated at build time against this build machine's BTF and
// relocated by libbpf against the running kernel's), attaches the task
// iterator once, and per read puts the tids asked in the `watched` map and
// reads one pass of the iterator.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string_view>

#include "host/host_files.h"
#include "host/kernel_stacks.h"
#include "host/wchan_access.h"
#include "kernel_stacks.skel.h"

namespace plegscope::host {
namespace {

// libbpf reports through one process-wide print callback: its last warning
// is kept so a failed load can say why in the report instead of on stderr.
std::mutex libbpf_message_mu;
std::string libbpf_message;

int keep_libbpf_message(enum libbpf_print_level level, const char* format, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char line[512];
  int n = std::vsnprintf(line, sizeof line, format, args);
  std::string text(line, n < 0 ? 0 : std::min<size_t>(static_cast<size_t>(n), sizeof line - 1));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // libbpf prefixes its own name; the report already says "libbpf: ".
  constexpr std::string_view kPrefix = "libbpf: ";
  if (text.compare(0, kPrefix.size(), kPrefix) == 0) text.erase(0, kPrefix.size());
  std::lock_guard<std::mutex> lock(libbpf_message_mu);
  libbpf_message = std::move(text);
  return 0;
}

std::string last_libbpf_message() {
  std::lock_guard<std::mutex> lock(libbpf_message_mu);
  return libbpf_message;
}

std::string failure(const std::string& what, int err) {
  std::string why = std::strerror(err < 0 ? -err : err);
  const std::string said = last_libbpf_message();
  return what + ": " + why + (said.empty() ? "" : " (libbpf: " + said + ")");
}

// The most one read returns: 1,024 tasks of 40 frames each fit well within.
constexpr size_t kMaxOutput = 4 * 1024 * 1024;

class BpfKernelStackReader : public KernelStackReader {
 public:
  BpfKernelStackReader(kernel_stacks_bpf* skel, bpf_link* link) : skel_(skel), link_(link) {}
  ~BpfKernelStackReader() override {
    bpf_link__destroy(link_);
    kernel_stacks_bpf__destroy(skel_);
  }

  Result read(const std::vector<int64_t>& tids) override {
    Result r;
    const int map = bpf_map__fd(skel_->maps.watched);
    for (uint32_t tid : watched_) bpf_map_delete_elem(map, &tid);
    watched_.clear();
    const uint8_t one = 1;
    for (int64_t tid : tids) {
      if (watched_.size() >= kMaxWatchedTids) break;
      if (tid <= 0 || tid > INT32_MAX) continue;
      uint32_t key = static_cast<uint32_t>(tid);
      if (bpf_map_update_elem(map, &key, &one, BPF_ANY) == 0) watched_.push_back(key);
    }
    if (watched_.empty()) return r;
    int fd = bpf_iter_create(bpf_link__fd(link_));
    if (fd < 0) {
      r.error = failure("cannot start the task iterator", errno);
      return r;
    }
    std::string text;
    char buffer[16 * 1024];
    while (text.size() < kMaxOutput) {
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        r.error = failure("reading the task iterator failed", errno);
        break;
      }
      if (n == 0) break;
      text.append(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
    r.stacks = parse_kernel_stacks(text);
    return r;
  }

 private:
  kernel_stacks_bpf* skel_;
  bpf_link* link_;
  std::vector<uint32_t> watched_;
};

}  // namespace

bool kernel_stacks_built() { return true; }

KernelStackReaderOpen open_kernel_stack_reader(const std::string& btf_path,
                                               const std::string& self_status_path) {
  KernelStackReaderOpen out;
  std::optional<uint64_t> caps;
  bool seccomp_filtered = false;
  if (FileText f = read_small_file(self_status_path, 16 * 1024); f.ok) {
    if (auto creds = parse_status_creds(f.text)) caps = creds->cap_effective;
    seccomp_filtered = status_seccomp_filtered(f.text);
  }
  out.unavailable = kernel_stacks_precondition(::access(btf_path.c_str(), R_OK) == 0, caps);
  if (!out.unavailable.empty()) return out;
  libbpf_set_print(keep_libbpf_message);
  kernel_stacks_bpf* skel = kernel_stacks_bpf__open();
  if (!skel) {
    out.unavailable = failure("the BPF program could not be opened", errno);
    return out;
  }
  if (int err = kernel_stacks_bpf__load(skel); err) {
    out.unavailable = failure("the kernel refused the BPF program", err) +
                      kernel_stacks_refusal_hint(err, seccomp_filtered);
    kernel_stacks_bpf__destroy(skel);
    return out;
  }
  bpf_link* link = bpf_program__attach_iter(skel->progs.dump_watched_stacks, nullptr);
  if (!link) {
    out.unavailable = failure("the task iterator could not be attached", errno);
    kernel_stacks_bpf__destroy(skel);
    return out;
  }
  out.reader = std::make_unique<BpfKernelStackReader>(skel, link);
  return out;
}

}  // namespace plegscope::host
