#include "host/stat_files.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace plegscope::host {
namespace {

constexpr long kProcSuperMagic = 0x9fa0;  // PROC_SUPER_MAGIC, <linux/magic.h>

long pread_once(int fd, char* buffer, size_t size) {
  ssize_t n;
  do {
    n = ::pread(fd, buffer, size, 0);
  } while (n < 0 && errno == EINTR);
  return static_cast<long>(n);
}

void close_keeping_errno(int fd) {
  int saved = errno;
  ::close(fd);
  errno = saved;
}

}  // namespace

StatFiles::StatFiles(std::string proc_path) : proc_path_(std::move(proc_path)) {}

StatFiles::~StatFiles() {
  for (auto& [tid, f] : files_) ::close(f.fd);
  if (proc_fd_ >= 0) ::close(proc_fd_);
}

bool StatFiles::begin_scan() {
  ++scan_;
  if (proc_fd_ >= 0) ::close(proc_fd_);
  proc_fd_ = ::open(proc_path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc_fd_ < 0) return false;
  struct statfs fs {};
  procfs_ = ::fstatfs(proc_fd_, &fs) == 0 && static_cast<long>(fs.f_type) == kProcSuperMagic;
  budget_ = 0;
  rlimit files{};
  if (procfs_ && ::getrlimit(RLIMIT_NOFILE, &files) == 0)
    budget_ = files.rlim_cur == RLIM_INFINITY ? kMaxKept : std::min<size_t>(kMaxKept, files.rlim_cur / 4);
  return true;
}

void StatFiles::end_scan() {
  for (auto it = files_.begin(); it != files_.end();) {
    if (it->second.scan != scan_ || files_.size() > budget_) {
      ::close(it->second.fd);
      it = files_.erase(it);
    } else {
      ++it;
    }
  }
  if (proc_fd_ >= 0) ::close(proc_fd_);
  proc_fd_ = -1;
}

long StatFiles::read(int64_t tid, const char* relative, char* buffer, size_t size) {
  if (auto it = files_.find(tid); it != files_.end()) {
    long n = pread_once(it->second.fd, buffer, size);
    if (n >= 0) {
      it->second.scan = scan_;
      return n;
    }
    // The task it was opened for is gone; the number may be another's now.
    close_keeping_errno(it->second.fd);
    files_.erase(it);
  }
  int fd = ::openat(proc_fd_, relative, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  long n = pread_once(fd, buffer, size);
  if (n < 0 || files_.size() >= budget_) {
    close_keeping_errno(fd);
    return n;
  }
  files_.emplace(tid, File{fd, scan_});
  return n;
}

long StatFiles::read_process(const char* pid_name, int64_t pid, char* buffer, size_t size) {
  if (procfs_)
    path_.assign(pid_name).append("/task/").append(pid_name).append("/stat");
  else
    path_.assign(pid_name).append("/stat");
  return read(pid, path_.c_str(), buffer, size);
}

long StatFiles::read_thread(int64_t pid, const char* tid_name, int64_t tid, char* buffer, size_t size) {
  path_.assign(std::to_string(pid)).append("/task/").append(tid_name).append("/stat");
  return read(tid, path_.c_str(), buffer, size);
}

}  // namespace plegscope::host
