// HostScanner on the real /proc: a parent that forks children and never
// reaps them has them counted as zombies under its own pid and comm; this
// process's own stat is read as the kernel reports it.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <future>
#include <thread>

#include "host/host_files.h"
#include "host/host_scanner.h"
#include "host/kernel_stacks.h"
#include "held_child.h"

namespace plegscope::host {
namespace {

constexpr int kZombies = 7;

// Forks "zombie-parent", which forks kZombies children that exit at once and
// waits for each with WNOWAIT: they are dead and unreaped, zombies for sure,
// before it says "ready" on the pipe. It then blocks until the test closes
// `release`, and exits without reaping (its zombies go to init).
pid_t start_zombie_parent(int& release_fd) {
  return start_held_child("zombie-parent", release_fd, [] {
    for (int i = 0; i < kZombies; ++i) {
      pid_t child = ::fork();
      if (child == 0) ::_exit(0);
      siginfo_t info;
      ::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT);
    }
  });
}

TEST(HostScannerLive, CountsRealZombiesUnderTheirParent) {
  int release_fd = -1;
  pid_t parent = start_zombie_parent(release_fd);
  ASSERT_GT(parent, 0);
  HostScanOptions options;  // /proc and /sys of this machine
  options.cmdline = HostScanOptions::Cmdline::kSkip;
  options.top_zombie_parents = 1000;
  HostScanner scanner(options);
  HostEvidence e = scanner.scan();
  ::close(release_fd);
  int status = 0;
  ::waitpid(parent, &status, 0);

  EXPECT_GE(e.processes.zombies, kZombies);
  const ZombieParent* ours = nullptr;
  for (const auto& z : e.processes.zombie_parents)
    if (z.pid == parent) ours = &z;
  ASSERT_TRUE(ours) << "no zombies seen under pid " << parent;
  EXPECT_EQ(ours->zombies, kZombies);
  EXPECT_EQ(ours->comm, "zombie-parent");
  EXPECT_EQ(ours->sandbox_id, "");
}

TEST(HostScannerLive, ReadsThisProcessAsTheKernelReportsIt) {
  // A second thread, alive (held on a future) while the stat is read.
  std::promise<void> release;
  std::thread extra([done = release.get_future()]() mutable { done.wait(); });
  FileText f = read_small_file("/proc/self/stat");
  release.set_value();
  extra.join();
  ASSERT_TRUE(f.ok) << f.error;
  auto self = parse_process_stat(f.text);
  ASSERT_TRUE(self);
  EXPECT_EQ(self->pid, ::getpid());
  EXPECT_EQ(self->ppid, ::getppid());
  EXPECT_EQ(self->state, 'R');  // it is running: reading its own stat
  EXPECT_GE(self->num_threads, 2);
  char comm[17] = {};
  ::prctl(PR_GET_NAME, comm);
  EXPECT_EQ(self->comm, comm);
  HostScanner scanner(HostScanOptions{});
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.processes.unreadable, "");
  EXPECT_GE(e.processes.total, 2);
  EXPECT_GE(e.processes.threads, e.processes.total);
}

}  // namespace
}  // namespace plegscope::host

// --kernel-stacks on this machine's kernel: a thread of this process asleep
// in a pipe read has its stack read through the BPF task iterator, with the
// kernel's own symbols; a tid that does not exist gives no stack. Without
// CAP_BPF/CAP_PERFMON or BPF support the reader says why (skipped, but a
// failure under CI, where the build must have BPF support and runs as root).
namespace plegscope::host {
namespace {

TEST(KernelStacksLive, AThreadAsleepInAPipeReadShowsItsKernelStack) {
  KernelStackReaderOpen opened = open_kernel_stack_reader();
  if (!opened.reader) {
    const char* ci = std::getenv("CI");
    if (ci && *ci && std::string(ci) != "0" && std::string(ci) != "false") FAIL() << opened.unavailable;
    GTEST_SKIP() << opened.unavailable;
  }
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::promise<int64_t> tid;
  std::thread sleeper([&] {
    tid.set_value(::gettid());
    char c;
    (void)!::read(fds[0], &c, 1);
  });
  const int64_t t = tid.get_future().get();
  // Asleep once its state says so (it may not have reached read() yet).
  std::vector<std::string> frames;
  for (int i = 0; i < 200 && frames.empty(); ++i) {
    auto r = opened.reader->read({t, 999999999});
    ASSERT_EQ(r.error, "");
    for (const auto& s : r.stacks) {
      EXPECT_EQ(s.tid, t) << "only the tids asked, and only existing ones";
      EXPECT_EQ(s.pid, ::getpid());
      bool in_read = false;
      for (const auto& f : s.frames) in_read = in_read || f.find("pipe_read") != std::string::npos;
      if (in_read) frames = s.frames;
    }
    if (frames.empty()) std::this_thread::yield();
  }
  ::close(fds[1]);
  sleeper.join();
  ::close(fds[0]);
  ASSERT_FALSE(frames.empty()) << "no stack through pipe_read for tid " << t;
  EXPECT_NE(top_meaningful_frame(frames), "");
  EXPECT_EQ(frames.back().find("0x"), std::string::npos) << "symbolised by the kernel: " << frames.back();
}

}  // namespace
}  // namespace plegscope::host
