// One HostScanner::scan() over a synthetic /proc of 1,000 and 10,000
// processes (a tenth of them shims with 8 threads each, as on a node with
// one shim per pod), beside the floor: a bare loop that opens and reads the
// same stat files (every <pid>/stat and the shims' task/<tid>/stat, after
// listing /proc and the task directories) in the same run. Budget (issue
// 17): <= 5 ms CPU at 1,000, <= 40 ms at 10,000.
// The scan's CPU is the calling thread's; cmdline answers are remembered
// after the first scan, so steady-state scans read no cmdline.
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "host/host_files.h"
#include "host/host_scanner.h"
#include "host/kernel_stacks.h"
#include "host/process_stat.h"

namespace fs = std::filesystem;
using namespace plegscope::host;

namespace {

constexpr int kShimThreads = 8;

std::string stat_line(int pid, const std::string& comm, char state, int ppid, int threads) {
  std::string line = std::to_string(pid) + " (" + comm + ") " + state + " " + std::to_string(ppid) +
                     " 1 1 0 -1 4194560 1200 0 3 0 150 40 0 0 20 0 " + std::to_string(threads) +
                     " 0 3482000 1234567168 2500";
  for (int i = 0; i < 28; ++i) line += " 0";
  return line + "\n";
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

struct SyntheticNode {
  fs::path root;
  std::vector<std::string> stat_files;  // what the floor reads: the scan's stat reads
  std::vector<std::string> task_dirs;   // and the directories it lists to find the threads

  explicit SyntheticNode(int processes) {
    // tmpfs when there is one: closest to /proc's cost of an open and a read.
    const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    root = base / ("host_scan_bench_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(processes));
    fs::remove_all(root);
    const fs::path proc = root / "proc", sys = root / "sys";
    write(proc / "uptime", "350000.00 690000.00\n");
    write(proc / "sys/kernel/pid_max", "4194304\n");
    write(proc / "sys/kernel/threads-max", "125000\n");
    write(proc / "1/mountinfo",
          "21 0 8:1 / / rw - ext4 /dev/sda1 rw\n31 21 8:16 / /var/lib/containerd rw - xfs /dev/sdb rw\n");
    write(proc / "diskstats", "   8      16 sdb 100 1 800 200 50 2 400 300 0 900 500 0 0 0 0 0 0\n");
    write(sys / "fs/cgroup/cgroup.controllers", "pids\n");
    write(sys / "fs/cgroup/system.slice/containerd.service/pids.current", "120\n");
    write(sys / "fs/cgroup/system.slice/containerd.service/pids.max", "4915\n");
    write(sys / "fs/cgroup/kubepods.slice/pids.current", "300\n");
    write(sys / "fs/cgroup/kubepods.slice/pids.max", "max\n");
    for (int i = 0; i < processes; ++i) {
      const int pid = 1000 + i * (kShimThreads + 2);
      const fs::path dir = proc / std::to_string(pid);
      std::string comm = "app", cmdline;
      int threads = 1;
      if (i == 0) {
        comm = "containerd";
        write(dir / "cgroup", "0::/system.slice/containerd.service\n");
      } else if (i % 10 == 1) {
        comm = "containerd-shim";
        threads = kShimThreads;
        write(dir / "cmdline", std::string("containerd-shim-runc-v2\0-id\0sandbox", 36) + std::to_string(i) +
                                   std::string(1, '\0'));
      }
      write(dir / "stat", stat_line(pid, comm, 'S', 1, threads));
      stat_files.push_back((dir / "stat").string());
      if (threads > 1) task_dirs.push_back((dir / "task").string());
      if (threads > 1)
        for (int t = 0; t < threads; ++t) {
          const fs::path task = dir / "task" / std::to_string(pid + t) / "stat";
          write(task, stat_line(pid + t, comm, 'S', 1, threads));
          stat_files.push_back(task.string());
        }
    }
  }
  ~SyntheticNode() { fs::remove_all(root); }
};

SyntheticNode& node(int processes) {
  static std::map<int, std::unique_ptr<SyntheticNode>> nodes;
  auto& n = nodes[processes];
  if (!n) n = std::make_unique<SyntheticNode>(processes);
  return *n;
}

void BM_HostScan(benchmark::State& state) {
  SyntheticNode& n = node(static_cast<int>(state.range(0)));
  HostScanOptions options;
  options.proc_path = (n.root / "proc").string();
  options.sys_path = (n.root / "sys").string();
  options.clock_ticks_per_second = 100;
  options.cmdline_options.wait = std::chrono::seconds(5);
  HostScanner scanner(options);
  HostEvidence first = scanner.scan();  // maps every shim (cmdline), as the agent's first scan does
  if (first.processes.total != state.range(0)) state.SkipWithError("synthetic tree not read whole");
  for (auto _ : state) benchmark::DoNotOptimize(scanner.scan());
  state.counters["processes"] = static_cast<double>(state.range(0));
}

void list(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  while (dirent* e = ::readdir(dir)) benchmark::DoNotOptimize(e);
  ::closedir(dir);
}

void BM_StatFloor(benchmark::State& state) {
  SyntheticNode& n = node(static_cast<int>(state.range(0)));
  const std::string proc = (n.root / "proc").string();
  char buffer[2048];
  for (auto _ : state) {
    // Listing /proc and the shims' task directories is part of any scan;
    // then the same stat files, bare.
    list(proc);
    for (const auto& d : n.task_dirs) list(d);
    long bytes = 0;
    // The fewest syscalls a read can take: open, one read, close.
    for (const auto& f : n.stat_files) {
      int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
      bytes += ::read(fd, buffer, sizeof buffer);
      ::close(fd);
    }
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["files"] = static_cast<double>(n.stat_files.size());
}

// This machine's own /proc: what a stat read costs on the real thing.
void BM_RealProcFloor(benchmark::State& state) {
  char buffer[2048];
  std::string path;
  long files = 0;
  for (auto _ : state) {
    files = 0;
    DIR* dir = ::opendir("/proc");
    while (dirent* e = ::readdir(dir)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      path.assign("/proc/").append(e->d_name).append("/stat");
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      benchmark::DoNotOptimize(::read(fd, buffer, sizeof buffer));
      ::close(fd);
      ++files;
    }
    ::closedir(dir);
  }
  state.counters["files"] = static_cast<double>(files);
}

void BM_HostScanRealProc(benchmark::State& state) {
  HostScanOptions options;
  options.cmdline = HostScanOptions::Cmdline::kSkip;
  HostScanner scanner(options);
  int64_t processes = scanner.scan().processes.total;
  for (auto _ : state) benchmark::DoNotOptimize(scanner.scan());
  state.counters["processes"] = static_cast<double>(processes);
}

// --kernel-stacks: one read of the kernel stacks of N sleeping threads of
// this process through the BPF task iterator (it walks every task of the
// host once and prints only those asked), beside BM_HostScanRealProc, the
// scan it runs after. Needs CAP_BPF + CAP_PERFMON and BTF; else skipped
// with the reason.
void BM_KernelStacksRead(benchmark::State& state) {
  static KernelStackReaderOpen opened = open_kernel_stack_reader();
  if (!opened.reader) {
    state.SkipWithError(opened.unavailable.c_str());
    return;
  }
  const int n = static_cast<int>(state.range(0));
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) {
    state.SkipWithError("pipe");
    return;
  }
  std::vector<std::thread> sleepers;
  std::vector<int64_t> tids;
  std::mutex mu;
  for (int i = 0; i < n; ++i)
    sleepers.emplace_back([&] {
      {
        std::lock_guard<std::mutex> lock(mu);
        tids.push_back(::gettid());
      }
      char c;
      benchmark::DoNotOptimize(::read(pipe_fds[0], &c, 1));  // sleeps in the kernel until the pipe closes
    });
  while (true) {
    std::lock_guard<std::mutex> lock(mu);
    if (static_cast<int>(tids.size()) == n) break;
  }
  size_t frames = 0, read = 0;
  for (auto _ : state) {
    auto r = opened.reader->read(tids);
    read = r.stacks.size();
    frames = 0;
    for (const auto& st : r.stacks) frames += st.frames.size();
  }
  ::close(pipe_fds[1]);
  for (auto& t : sleepers) t.join();
  ::close(pipe_fds[0]);
  state.counters["tasks_read"] = static_cast<double>(read);
  state.counters["frames"] = static_cast<double>(frames);
  DIR* dir = ::opendir("/proc");
  int64_t tasks = 0;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    auto st = read_small_file(std::string("/proc/") + e->d_name + "/stat", 2048);
    if (auto p = parse_process_stat(st.text)) tasks += p->num_threads;
  }
  ::closedir(dir);
  state.counters["host_tasks"] = static_cast<double>(tasks);
}

}  // namespace

BENCHMARK(BM_KernelStacksRead)->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RealProcFloor)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostScanRealProc)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StatFloor)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HostScan)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
