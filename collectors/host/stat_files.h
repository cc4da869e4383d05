#pragma once
// The host scan's stat reads, one per process and one per thread of the
// runtime's processes, at the kernel's lowest price.
//
// On a real procfs two things cost more than the bytes:
//  - <proc>/<pid>/stat is built for the whole thread group: the kernel sums
//    every thread's CPU times and fault counts on each read (do_task_stat
//    with whole=1), so its price grows with the process's threads. The main
//    thread's own <proc>/<pid>/task/<pid>/stat holds every field the scan
//    uses (pid, comm, state, ppid, the group's thread count, start time)
//    without that sum, so on procfs that file is read instead.
//  - open and close walk the path, revalidate the pid's dentries and
//    allocate the file and its seq_file buffer each time. A file kept open is
//    read again from offset 0 with one pread. An open /proc file is bound to
//    the task it was opened for: once that task is gone (reaped, its number
//    maybe reused by another), pread fails with ESRCH, and the file is closed
//    and the number opened afresh. So a kept file never reads another
//    process, with no start-time check needed.
// Each kept file holds about 4.3 KiB of kernel memory (its seq_file buffer
// and the file), charged to the agent's memory cgroup, and one fd; so at
// most `kMaxKept` are kept, and at most a quarter of the soft RLIMIT_NOFILE.
// Files not read in a scan are closed at its end (the process has exited).
//
// On a tree that is not procfs (fixture trees, the synthetic bench on tmpfs)
// nothing is kept and <proc>/<pid>/stat is read, as before: a regular file
// kept open would read stale text after a rename.
//
// Not thread-safe: used by one HostScanner under its lock.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace plegscope::host {

class StatFiles {
 public:
  static constexpr size_t kMaxKept = 4096;

  explicit StatFiles(std::string proc_path);
  ~StatFiles();
  StatFiles(const StatFiles&) = delete;
  StatFiles& operator=(const StatFiles&) = delete;

  // Once per scan, before the reads: opens <proc> (false when it cannot be
  // opened; errno set) and works out how many files may stay open.
  bool begin_scan();
  // The fd of <proc> for this scan (listing it), valid until end_scan().
  int proc_fd() const { return proc_fd_; }
  // Closes the files no read of this scan asked for, and <proc>.
  void end_scan();

  // A process's stat line into `buffer` (the main thread's on procfs);
  // `pid_name` is its directory name. The byte count, or -1 with errno set
  // (the process exited).
  long read_process(const char* pid_name, int64_t pid, char* buffer, size_t size);
  // A thread's <proc>/<pid>/task/<tid>/stat.
  long read_thread(int64_t pid, const char* tid_name, int64_t tid, char* buffer, size_t size);

  bool procfs() const { return procfs_; }
  size_t kept() const { return files_.size(); }

 private:
  struct File {
    int fd = -1;
    uint64_t scan = 0;  // the last scan that read it
  };
  long read(int64_t tid, const char* relative, char* buffer, size_t size);

  const std::string proc_path_;
  bool procfs_ = false;
  int proc_fd_ = -1;
  size_t budget_ = 0;
  uint64_t scan_ = 0;
  std::unordered_map<int64_t, File> files_;  // by tid (a process by its main thread's)
  std::string path_;
};

}  // namespace plegscope::host
