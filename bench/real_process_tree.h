#pragma once
// A real process tree for the host-scan benchmarks: `processes` child
// processes of `threads_each` threads each (the main thread included), every
// thread asleep in a read of one pipe, so the real /proc and /sys show them as
// a thread-heavy node would (state S, their own task/<tid> entries, the
// kernel's per-thread bookkeeping), while they use no CPU.
//
// Made and reaped by the benchmark, and nothing left behind however it ends:
//  - the benchmark holds the only write end of the pipe; when it closes it
//    (the destructor, a signal handler, or the kernel at the benchmark's
//    exit, even by SIGKILL) every sleeper's read returns 0 and its process
//    exits;
//  - each child also asks for SIGKILL when its parent dies (PR_SET_PDEATHSIG),
//    in case it is still creating its threads then;
//  - the destructor waits for every child.
// A tree that would leave fewer than `spare_tasks` pids under pid_max, or
// tasks under threads-max, is refused before anything is made: other work
// on the machine must still be able to fork.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace plegscope::bench {

// The write end of the live tree's pipe, for the signal handler below.
inline std::atomic<int>& tree_pipe_write_end() {
  static std::atomic<int> fd{-1};
  return fd;
}

// SIGINT/SIGTERM/SIGHUP: wake the sleepers (they exit on EOF) and leave. The
// children, reparented, are reaped by init or the subreaper.
inline void tree_on_signal(int sig) {
  int fd = tree_pipe_write_end().exchange(-1);
  if (fd >= 0) ::close(fd);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

inline void install_tree_signal_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, tree_on_signal);
}

// Tasks (processes and threads) that exist now, from /proc/loadavg's
// "runnable/total" field; -1 when unreadable.
inline long host_tasks_now() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c, tasks;
  if (!(in >> a >> b >> c >> tasks)) return -1;
  auto slash = tasks.find('/');
  return slash == std::string::npos ? -1 : std::atol(tasks.c_str() + slash + 1);
}

inline long read_long_file(const char* path) {
  std::ifstream in(path);
  long v = -1;
  in >> v;
  return v;
}

class RealProcessTree {
 public:
  RealProcessTree(int processes, int threads_each, long spare_tasks = 3000) {
    if (processes <= 0) return;
    const long now = host_tasks_now(), pid_max = read_long_file("/proc/sys/kernel/pid_max"),
               threads_max = read_long_file("/proc/sys/kernel/threads-max");
    const long wanted = static_cast<long>(processes) * threads_each;
    if (now < 0 || pid_max <= 0 || threads_max <= 0) {
      error = "cannot read /proc/loadavg, pid_max or threads-max";
      return;
    }
    const long limit = std::min(pid_max, threads_max);
    if (now + wanted + spare_tasks > limit) {
      error = "refused: " + std::to_string(wanted) + " tasks beside the " + std::to_string(now) +
              " running would leave fewer than " + std::to_string(spare_tasks) + " of " + std::to_string(limit) +
              " (pid_max " + std::to_string(pid_max) + ", threads-max " + std::to_string(threads_max) + ")";
      return;
    }
    int sleep_pipe[2], ready_pipe[2];
    if (::pipe2(sleep_pipe, O_CLOEXEC) != 0 || ::pipe2(ready_pipe, O_CLOEXEC) != 0) {
      error = std::string("pipe: ") + std::strerror(errno);
      return;
    }
    write_end_ = sleep_pipe[1];
    tree_pipe_write_end() = write_end_;
    const pid_t parent = ::getpid();
    for (int i = 0; i < processes; ++i) {
      pid_t pid = ::fork();
      if (pid < 0) {
        error = std::string("fork: ") + std::strerror(errno);
        break;
      }
      if (pid == 0) child(parent, sleep_pipe, ready_pipe[1], threads_each);
      pids.push_back(pid);
    }
    ::close(sleep_pipe[0]);
    ::close(ready_pipe[1]);
    // One byte per child once its threads exist: 'r', or 'f' when one failed.
    size_t answered = 0;
    char c;
    while (answered < pids.size() && ::read(ready_pipe[0], &c, 1) == 1) {
      ++answered;
      if (c != 'r') ++failed_;
    }
    ::close(ready_pipe[0]);
    if (failed_ && error.empty()) error = std::to_string(failed_) + " children could not start all their threads";
  }

  ~RealProcessTree() {
    int fd = tree_pipe_write_end().exchange(-1);
    if (fd >= 0) ::close(fd);
    for (pid_t pid : pids)
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
  }

  RealProcessTree(const RealProcessTree&) = delete;
  RealProcessTree& operator=(const RealProcessTree&) = delete;

  bool ok() const { return error.empty(); }

  std::vector<pid_t> pids;
  std::string error;

 private:
  static void* sleep_on(void* fd) {
    char c;
    while (::read(static_cast<int>(reinterpret_cast<intptr_t>(fd)), &c, 1) != 0) {
    }
    return nullptr;
  }

  [[noreturn]] static void child(pid_t parent, const int sleep_pipe[2], int ready, int threads_each) {
    ::close(sleep_pipe[1]);  // else this child's own write end would keep the pipe open
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(0);  // the parent died before the request
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
    ::prctl(PR_SET_NAME, "tree-sleeper");
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    ::pthread_attr_setstacksize(&attr, 64 * 1024);  // they only sleep
    char ok = 'r';
    void* fd = reinterpret_cast<void*>(static_cast<intptr_t>(sleep_pipe[0]));
    for (int t = 1; t < threads_each; ++t) {
      pthread_t thread;
      if (::pthread_create(&thread, &attr, sleep_on, fd) != 0) {
        ok = 'f';
        break;
      }
    }
    (void)!::write(ready, &ok, 1);
    ::close(ready);
    sleep_on(fd);
    ::_exit(0);
  }

  int write_end_ = -1;
  int failed_ = 0;
};

}  // namespace plegscope::bench
