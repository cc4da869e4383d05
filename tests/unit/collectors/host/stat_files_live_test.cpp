// StatFiles and HostScanner on the real /proc: the main thread's stat says
// what the process's says (but the summed times), a file kept open between
// scans follows its process into Z and is dropped once it is reaped, a
// process that appears or goes between scans is seen as it is, and no more
// files stay open than a quarter of the soft RLIMIT_NOFILE.
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>

#include "host/host_files.h"
#include "host/host_scanner.h"
#include "host/process_stat.h"
#include "host/stat_files.h"
#include "held_child.h"

namespace plegscope::host {
namespace {

// A child named `name` asleep in a read of a pipe until the test closes
// `release`; it then exits (the test reaps it, or not).
pid_t start_sleeper(const char* name, int& release_fd) {
  return start_held_child(name, release_fd, [] {});
}

std::optional<ProcessStat> read_process(StatFiles& files, pid_t pid) {
  char buffer[2048];
  const std::string name = std::to_string(pid);
  long n = files.read_process(name.c_str(), pid, buffer, sizeof buffer);
  if (n < 0) return std::nullopt;
  return parse_process_stat(std::string_view(buffer, static_cast<size_t>(n)));
}

TEST(StatFilesLive, TheMainThreadsStatSaysWhatTheProcesssSays) {
  std::promise<void> release;
  std::thread extra([done = release.get_future()]() mutable { done.wait(); });
  StatFiles files("/proc");
  ASSERT_TRUE(files.begin_scan());
  EXPECT_TRUE(files.procfs());
  auto mine = read_process(files, ::getpid());
  FileText whole = read_small_file("/proc/self/stat");
  files.end_scan();
  release.set_value();
  extra.join();
  ASSERT_TRUE(mine);
  auto group = parse_process_stat(whole.text);
  ASSERT_TRUE(group);
  EXPECT_EQ(mine->pid, group->pid);
  EXPECT_EQ(mine->comm, group->comm);
  EXPECT_EQ(mine->ppid, group->ppid);
  EXPECT_EQ(mine->num_threads, group->num_threads) << "the group's count, from the main thread's file";
  EXPECT_GE(mine->num_threads, 2);
  EXPECT_EQ(mine->starttime, group->starttime);
}

TEST(StatFilesLive, AKeptFileFollowsItsProcessIntoZAndIsDroppedOnceReaped) {
  int release_fd = -1;
  pid_t child = start_sleeper("statfiles-kid", release_fd);
  ASSERT_GT(child, 0);
  StatFiles files("/proc");
  ASSERT_TRUE(files.begin_scan());
  auto asleep = read_process(files, child);
  files.end_scan();
  ASSERT_TRUE(asleep);
  EXPECT_EQ(asleep->comm, "statfiles-kid");
  const size_t kept = files.kept();
  EXPECT_GE(kept, 1u);

  ::close(release_fd);  // it exits; not reaped yet
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  ASSERT_TRUE(files.begin_scan());
  auto zombie = read_process(files, child);
  files.end_scan();
  ASSERT_TRUE(zombie);
  EXPECT_EQ(zombie->state, 'Z');
  EXPECT_EQ(files.kept(), kept) << "read through the same kept file";

  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  ASSERT_TRUE(files.begin_scan());
  auto gone = read_process(files, child);
  files.end_scan();
  // Gone, unless the number was taken again at once: then it is the new
  // process's, opened afresh, never the reaped one's.
  if (gone) EXPECT_NE(gone->comm, "statfiles-kid");
  else EXPECT_EQ(files.kept(), kept - 1);
}

TEST(StatFilesLive, KeepsAtMostAQuarterOfTheSoftFileLimit) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit low = before;
  low.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  StatFiles files("/proc");
  char buffer[2048];
  int read = 0;
  ASSERT_TRUE(files.begin_scan());
  if (DIR* dir = ::opendir("/proc")) {
    while (dirent* e = ::readdir(dir))
      if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
          files.read_process(e->d_name, std::strtoll(e->d_name, nullptr, 10), buffer, sizeof buffer) >= 0)
        ++read;
    ::closedir(dir);
  }
  files.end_scan();
  const size_t kept = files.kept();
  HostScanOptions options;
  options.cmdline = HostScanOptions::Cmdline::kSkip;
  HostScanner scanner(options);
  HostEvidence e = scanner.scan();
  e = scanner.scan();
  ::setrlimit(RLIMIT_NOFILE, &before);
  EXPECT_EQ(kept, std::min<size_t>(16, static_cast<size_t>(read)));
  EXPECT_EQ(e.processes.unreadable, "");
  EXPECT_GE(e.processes.total, read - 5) << "the files not kept are read the plain way";
}

TEST(HostScannerLive, SeesAProcessComeAndGoBetweenScans) {
  HostScanOptions options;
  options.cmdline = HostScanOptions::Cmdline::kSkip;
  options.top_zombie_parents = 1000;
  HostScanner scanner(options);
  HostEvidence before = scanner.scan();
  int release_fd = -1;
  pid_t child = start_sleeper("scan-comes-goes", release_fd);
  ASSERT_GT(child, 0);
  HostEvidence with = scanner.scan();
  ::close(release_fd);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);
  HostEvidence zombie = scanner.scan();
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  HostEvidence after = scanner.scan();

  auto zombies_under_us = [](const HostEvidence& e) -> int64_t {
    for (const auto& z : e.processes.zombie_parents)
      if (z.pid == ::getpid()) return z.zombies;
    return 0;
  };
  EXPECT_EQ(zombies_under_us(with), 0);
  EXPECT_EQ(zombies_under_us(zombie), 1) << "the kept file shows it in Z";
  EXPECT_EQ(zombies_under_us(after), 0) << "reaped: its file is gone";
  EXPECT_GE(before.processes.total, 2);
}

}  // namespace
}  // namespace plegscope::host
