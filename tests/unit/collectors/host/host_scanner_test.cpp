// HostScanner over the fixture trees in tests/fixtures/host (see its README):
// what an operator needs named (which shim, which sandbox, which limit, which
// disk) and, for broken or missing files, an "unreadable" that says why.
#include <algorithm>
#include <gtest/gtest.h>

#include "host_fixture_options.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "host/host_files.h"
#include "host/host_scanner.h"

#include "fake_clock.h"
#include "source_tree.h"

namespace plegscope::host {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kTrees = source_tree::fixtures() + "/host/";
const std::string kSandbox = "5f1c2a9e8b7d4c3f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071";

HostScanOptions tree(const std::string& root) {
  return fixture_tree_options(root);
}

const HelperProcess* helper(const HostEvidence& e, int64_t pid) {
  for (const auto& h : e.processes.helpers)
    if (h.pid == pid) return &h;
  return nullptr;
}

const PidLimit* limit(const HostEvidence& e, const std::string& scope, const std::string& owner = "") {
  for (const auto& l : e.pid_limits)
    if (l.scope == scope && (owner.empty() || l.owner == owner)) return &l;
  return nullptr;
}

std::vector<DiskCounters> diskstats_file(const std::string& path) {
  return *parse_diskstats(read_small_file(path).text);
}

TEST(HostScanner, HealthyNodeOnCgroupV2) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "healthy_v2"), clock);
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.processes.unreadable, "");
  EXPECT_EQ(e.processes.total, 10);  // every <pid> directory of the tree
  EXPECT_EQ(e.processes.zombies, 0);
  EXPECT_TRUE(e.processes.blocked.empty());
  // containerd, two shims, and runc's init under the first shim.
  ASSERT_EQ(e.processes.helpers.size(), 4u);
  const HelperProcess* shim = helper(e, 2000);
  ASSERT_TRUE(shim);
  EXPECT_EQ(shim->role, "shim");
  EXPECT_EQ(shim->cmdline_status, "known");
  EXPECT_EQ(shim->sandbox_id, "00" + kSandbox.substr(2));
  EXPECT_NEAR(*shim->age_seconds, 1800, 0.01);
  const HelperProcess* init = helper(e, 3000);
  ASSERT_TRUE(init);
  EXPECT_EQ(init->role, "oci_runtime");
  EXPECT_EQ(init->sandbox_id, shim->sandbox_id) << "runc acts for the pod of the shim that runs it";
  EXPECT_EQ(helper(e, 900)->role, "daemon");

  const PidLimit* runtime = limit(e, "runtime", "containerd");
  ASSERT_TRUE(runtime);
  EXPECT_EQ(runtime->unreadable, "");
  EXPECT_EQ(runtime->cgroup, "system.slice/containerd.service");
  EXPECT_EQ(runtime->current, 120);
  EXPECT_EQ(*runtime->max, 4915);
  const PidLimit* kubepods = limit(e, "kubepods");
  ASSERT_TRUE(kubepods);
  EXPECT_EQ(kubepods->cgroup, "kubepods.slice");
  EXPECT_EQ(kubepods->current, 310);
  EXPECT_FALSE(kubepods->max) << "\"max\" is no limit";
  EXPECT_FALSE(kubepods->ratio);
  const PidLimit* pid_max = limit(e, "node_pid_max");
  EXPECT_EQ(*pid_max->max, 4194304);
  EXPECT_EQ(pid_max->current, e.processes.threads);
  EXPECT_EQ(*limit(e, "node_threads_max")->max, 125000);

  ASSERT_TRUE(e.runtime_disk.value);
  EXPECT_EQ(e.runtime_disk.unreadable, "");
  EXPECT_EQ(e.runtime_disk.value->root, "/var/lib/containerd");
  EXPECT_EQ(e.runtime_disk.value->mount, "/var/lib/containerd");
  EXPECT_EQ(e.runtime_disk.value->device, "sdb");
  EXPECT_FALSE(e.runtime_disk.value->latency_ms) << "one sample: no rate yet";

  // The next scan rates the disk against this one (same file: idle).
  clock.step(5s);
  HostEvidence again = scanner.scan();
  ASSERT_TRUE(again.runtime_disk.value);
  EXPECT_DOUBLE_EQ(again.runtime_disk.value->interval_seconds, 5.0);
  EXPECT_DOUBLE_EQ(*again.runtime_disk.value->utilization, 0.0);
  EXPECT_FALSE(again.runtime_disk.value->latency_ms);
}

TEST(HostScanner, DockerOnCgroupV1) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "cgroup_v1_docker"), clock);
  HostEvidence e = scanner.scan();
  const PidLimit* dockerd = limit(e, "runtime", "dockerd");
  ASSERT_TRUE(dockerd);
  EXPECT_EQ(dockerd->cgroup, "pids/system.slice/dockerd.service");
  EXPECT_EQ(dockerd->current, 1000);
  EXPECT_DOUBLE_EQ(*dockerd->ratio, 0.25);
  const PidLimit* containerd = limit(e, "runtime", "containerd");
  ASSERT_TRUE(containerd);
  EXPECT_EQ(containerd->unreadable, "");
  EXPECT_FALSE(containerd->max);
  const PidLimit* kubepods = limit(e, "kubepods");
  EXPECT_EQ(kubepods->cgroup, "pids/kubepods");
  EXPECT_DOUBLE_EQ(*kubepods->ratio, 0.03);
  ASSERT_TRUE(e.runtime_disk.value);
  EXPECT_EQ(e.runtime_disk.value->root, "/var/lib/docker") << "docker keeps its layers under its own root";
  EXPECT_EQ(e.runtime_disk.value->mount, "/");
  EXPECT_EQ(e.runtime_disk.value->device, "sda1");
}

TEST(HostScanner, TheSystemBusStoppedIsTimedAcrossScansAndTheSessionBusLeftOut) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "dbus_stopped"), clock);
  HostEvidence first = scanner.scan();
  EXPECT_EQ(first.system_bus.unreadable, "");
  ASSERT_EQ(first.system_bus.daemons.size(), 1u) << "the session bus (user.slice) is not systemd's";
  EXPECT_EQ(first.system_bus.daemons[0].pid, 600);
  EXPECT_EQ(first.system_bus.daemons[0].comm, "dbus-daemon");
  EXPECT_EQ(first.system_bus.daemons[0].state, 'T');
  EXPECT_TRUE(first.system_bus.daemons[0].stalled);
  EXPECT_EQ(first.system_bus.daemons[0].seconds_stalled, 0) << "first seen stopped on this scan";
  // runc create under shim 2000: its age and the sandbox it acts on.
  const HelperProcess* runc = helper(first, 3100);
  ASSERT_TRUE(runc);
  EXPECT_EQ(runc->role, "oci_runtime");
  EXPECT_EQ(runc->state, 'S');
  ASSERT_TRUE(runc->age_seconds);
  EXPECT_NEAR(*runc->age_seconds, 40, 0.01);
  EXPECT_EQ(runc->sandbox_id, "00" + kSandbox.substr(2));
  EXPECT_TRUE(first.processes.blocked.empty()) << "a runc waiting on the bus sleeps in S";
  clock.step(30s);
  HostEvidence later = scanner.scan();
  ASSERT_EQ(later.system_bus.daemons.size(), 1u);
  EXPECT_DOUBLE_EQ(later.system_bus.daemons[0].seconds_stalled, 30);
}

TEST(HostScanner, NoBusDaemonNoBusEntry) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "healthy_v2"), clock);
  HostEvidence e = scanner.scan();
  EXPECT_TRUE(e.system_bus.daemons.empty()) << "no bus daemon in this tree";
  EXPECT_EQ(e.system_bus.unreadable, "");
}

TEST(HostScanner, ShimInDOnNfsIsNamedWithItsSandboxAndTimedAcrossScans) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "shim_in_d_nfs"), clock);
  HostEvidence first = scanner.scan();
  ASSERT_EQ(first.processes.blocked.size(), 2u);  // the shim's main thread and one more
  for (const auto& b : first.processes.blocked) {
    EXPECT_EQ(b.pid, 4242);
    EXPECT_EQ(b.sandbox_id, kSandbox);
    EXPECT_EQ(b.seconds_in_d, 0) << "first seen in D on this scan";
  }
  clock.step(30s);
  HostEvidence later = scanner.scan();
  ASSERT_EQ(later.processes.blocked.size(), 2u);
  const BlockedTask& main = later.processes.blocked[0].tid == 4242 ? later.processes.blocked[0]
                                                                   : later.processes.blocked[1];
  const BlockedTask& thread = later.processes.blocked[0].tid == 4242 ? later.processes.blocked[1]
                                                                     : later.processes.blocked[0];
  EXPECT_EQ(main.comm, "containerd-shim");
  EXPECT_EQ(main.role, "shim");
  EXPECT_EQ(main.wchan, "nfs_wait_bit_killable");
  EXPECT_DOUBLE_EQ(main.seconds_in_d, 30);
  EXPECT_EQ(thread.tid, 4244);
  EXPECT_EQ(thread.wchan, "rpc_wait_bit_killable");
  EXPECT_DOUBLE_EQ(thread.seconds_in_d, 30);
  EXPECT_EQ(later.processes.in_d, 1);
}

TEST(HostScanner, TimeInDRestartsWhenTheTaskLeavesD) {
  fs::path dir = fs::temp_directory_path() / ("host_scanner_d_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kTrees + "shim_in_d_nfs", dir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const std::string stat_path = (dir / "proc/4242/task/4244/stat").string();
  std::string d_line = read_small_file(stat_path).text;
  auto set_state = [&](char state) {
    std::string line = d_line;
    line[line.find(") ") + 2] = state;
    std::ofstream(stat_path, std::ios::trunc) << line;
  };
  testing::FakeClock clock;
  HostScanner scanner(tree(dir.string()), clock);
  auto thread_seconds = [&]() -> std::optional<double> {
    for (const auto& b : scanner.scan().processes.blocked)
      if (b.tid == 4244) return b.seconds_in_d;
    return std::nullopt;
  };
  EXPECT_EQ(thread_seconds(), 0.0);
  clock.step(20s);
  EXPECT_EQ(thread_seconds(), 20.0);
  set_state('S');
  clock.step(20s);
  EXPECT_FALSE(thread_seconds());
  set_state('D');
  clock.step(20s);
  EXPECT_EQ(thread_seconds(), 0.0) << "a new stretch in D, not 60 s";
  fs::remove_all(dir);
}

TEST(HostScanner, ZombiesGroupedByParentWithTheShimsSandbox) {
  HostScanner scanner(tree(kTrees + "zombies_300"));
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.processes.zombies, 303);
  ASSERT_EQ(e.processes.zombie_parents.size(), 2u);
  EXPECT_EQ(e.processes.zombie_parents[0].pid, 5000);
  EXPECT_EQ(e.processes.zombie_parents[0].comm, "containerd-shim");
  EXPECT_EQ(e.processes.zombie_parents[0].zombies, 300);
  EXPECT_EQ(e.processes.zombie_parents[0].sandbox_id, kSandbox);
  EXPECT_EQ(e.processes.zombie_parents[1].pid, 700);
  EXPECT_EQ(e.processes.zombie_parents[1].comm, "kubelet");
  EXPECT_EQ(e.processes.zombie_parents[1].sandbox_id, "");
}

// As the DaemonSet runs the agent: uid 0 with every capability dropped. A
// shim holds full capabilities, so the kernel hides its wchan ("0"); the
// scan says why, per the kernel's rule, for each task.
TEST(HostScanner, AHiddenWchanSaysWhyByTheKernelsPtraceRule) {
  HostScanOptions o = tree(kTrees + "shim_wchan_hidden");
  o.self_status_path = kTrees + "shim_wchan_hidden/self_status";
  HostEvidence e = HostScanner(o).scan();
  int shim_tasks = 0;
  for (const auto& b : e.processes.blocked) {
    EXPECT_EQ(b.wchan, "0");
    if (b.pid == 4300) {
      ++shim_tasks;
      EXPECT_EQ(b.wchan_hidden, WchanHidden::kMissingCapabilities) << b.tid;
    } else {
      EXPECT_EQ(b.pid, 4400);
      EXPECT_EQ(b.wchan_hidden, WchanHidden::kOtherUser);
    }
  }
  EXPECT_EQ(shim_tasks, 12) << "the scanner lists tasks; the report groups them by process";

  o.self_status_path = kTrees + "shim_wchan_hidden/self_status_ptrace";
  for (const auto& b : HostScanner(o).scan().processes.blocked)
    EXPECT_EQ(b.wchan_hidden, WchanHidden::kDenied) << "with CAP_SYS_PTRACE only an LSM can hide it";

  o.self_status_path = kTrees + "shim_wchan_hidden/no_such_status";
  for (const auto& b : HostScanner(o).scan().processes.blocked)
    EXPECT_EQ(b.wchan_hidden, WchanHidden::kUnknownCredentials);
}

TEST(HostScanner, ZombieParentsAreTiedToTheirPodsByAncestryOrCgroup) {
  HostEvidence e = HostScanner(tree(kTrees + "zombies_in_pods")).scan();
  EXPECT_EQ(e.processes.zombies, 250);
  ASSERT_EQ(e.processes.zombie_parents.size(), 2u);
  const ZombieParent& in_container = e.processes.zombie_parents[0];
  EXPECT_EQ(in_container.pid, 8000);
  EXPECT_EQ(in_container.comm, "zombies");
  EXPECT_EQ(in_container.zombies, 200);
  EXPECT_EQ(in_container.sandbox_id, kSandbox) << "shim 5000 is its grandparent";
  EXPECT_EQ(in_container.found_by, "ancestry");
  const ZombieParent& reparented = e.processes.zombie_parents[1];
  EXPECT_EQ(reparented.pid, 8100);
  EXPECT_EQ(reparented.sandbox_id, "");
  EXPECT_EQ(reparented.pod_uid, "0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47");
  EXPECT_EQ(reparented.found_by, "cgroup");

  HostEvidence shim_parent = HostScanner(tree(kTrees + "zombies_300")).scan();
  EXPECT_EQ(shim_parent.processes.zombie_parents[0].found_by, "helper");
  EXPECT_EQ(shim_parent.processes.zombie_parents[1].found_by, "") << "the kubelet is in no pod";
}

TEST(HostScanner, RuntimeCgroupNearItsPidsMax) {
  HostScanner scanner(tree(kTrees + "runtime_pids_95"));
  HostEvidence e = scanner.scan();
  const PidLimit* dockerd = limit(e, "runtime", "dockerd");
  ASSERT_TRUE(dockerd);
  EXPECT_EQ(dockerd->current, 3800);
  EXPECT_EQ(*dockerd->max, 4000);
  EXPECT_DOUBLE_EQ(*dockerd->ratio, 0.95);
}

// Two daemons of one name (a test runtime beside the node's): the one
// nearest its limit is reported, whichever has the lower pid.
TEST(HostScanner, OfTwoDaemonsOfOneNameTheOneNearestItsLimit) {
  const fs::path root = fs::temp_directory_path() / ("plegscope-two-daemons-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::copy(kTrees + "runtime_pids_95", root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::create_directories(root / "proc/650");
  std::ofstream(root / "proc/650/stat")
      << "650 (dockerd) S 1 650 650 0 -1 4194560 1200 0 3 0 150 40 0 0 20 0 8 0 26300000 1234567168 2500 0 0 0 0 "
         "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
  std::ofstream(root / "proc/650/cgroup") << "12:pids:/other-dockerd\n0::/\n";
  fs::create_directories(root / "sys/fs/cgroup/pids/other-dockerd");
  std::ofstream(root / "sys/fs/cgroup/pids/other-dockerd/pids.current") << "10\n";
  std::ofstream(root / "sys/fs/cgroup/pids/other-dockerd/pids.max") << "4000\n";
  HostScanner scanner(tree(root.string()));
  HostEvidence e = scanner.scan();
  fs::remove_all(root);
  int dockerds = 0;
  for (const auto& l : e.pid_limits) dockerds += l.scope == "runtime" && l.owner == "dockerd";
  EXPECT_EQ(dockerds, 1) << "one limit per daemon name";
  const PidLimit* dockerd = limit(e, "runtime", "dockerd");
  ASSERT_TRUE(dockerd);
  EXPECT_EQ(dockerd->current, 3800);
  EXPECT_DOUBLE_EQ(*dockerd->ratio, 0.95);
}

TEST(HostScanner, SlowDiskFromTwoSamples) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "slow_disk"), clock);
  scanner.set_previous_diskstats(diskstats_file(kTrees + "slow_disk/diskstats.before"), clock.monotonic());
  clock.step(10s);
  HostEvidence e = scanner.scan();
  ASSERT_TRUE(e.runtime_disk.value);
  const RuntimeDisk& disk = *e.runtime_disk.value;
  EXPECT_EQ(disk.device, "sdb");
  EXPECT_DOUBLE_EQ(*disk.latency_ms, 250);
  EXPECT_DOUBLE_EQ(*disk.utilization, 0.6);
  EXPECT_EQ(disk.completed_ios, 40u);
  EXPECT_EQ(disk.in_flight, 3u);
}

TEST(HostScanner, NoAlarmTreeStaysBelowEveryThreshold) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "no_alarm"), clock);
  scanner.set_previous_diskstats(diskstats_file(kTrees + "no_alarm/diskstats.before"), clock.monotonic());
  clock.step(10s);
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.processes.zombies, 20);
  EXPECT_TRUE(e.processes.blocked.empty());
  EXPECT_DOUBLE_EQ(*limit(e, "runtime")->ratio, 0.6);
  ASSERT_TRUE(e.runtime_disk.value);
  EXPECT_DOUBLE_EQ(*e.runtime_disk.value->latency_ms, 3);
  EXPECT_DOUBLE_EQ(*e.runtime_disk.value->utilization, 0.8);
}

TEST(HostScanner, MalformedFilesAreUnreadableNotFatal) {
  HostScanner scanner(tree(kTrees + "malformed"));
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.processes.unreadable, "2 malformed <pid>/stat file(s) skipped");
  EXPECT_GT(e.processes.total, 0);
  EXPECT_FALSE(helper(e, 2000)->age_seconds) << "uptime is garbage";
  EXPECT_NE(limit(e, "runtime")->unreadable.find("900/cgroup: malformed"), std::string::npos);
  EXPECT_NE(limit(e, "kubepods")->unreadable.find("kubepods.slice/pids.max: malformed"), std::string::npos);
  EXPECT_NE(limit(e, "node_pid_max")->unreadable.find("pid_max: malformed"), std::string::npos);
  EXPECT_NE(e.runtime_disk.unreadable.find("mountinfo: malformed"), std::string::npos);
  EXPECT_FALSE(e.runtime_disk.value);
}

TEST(HostScanner, MissingFilesSayWhichAndWhy) {
  HostScanner scanner(tree(kTrees + "missing"));
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.processes.unreadable, "");
  EXPECT_EQ(helper(e, 2000)->cmdline_status, "unreadable");
  EXPECT_EQ(helper(e, 2000)->sandbox_id, "");
  EXPECT_NE(limit(e, "runtime")->unreadable.find("No such file"), std::string::npos);
  EXPECT_NE(limit(e, "kubepods")->unreadable.find("no kubepods"), std::string::npos);
  EXPECT_NE(limit(e, "node_threads_max")->unreadable.find("No such file"), std::string::npos);
  EXPECT_NE(e.runtime_disk.unreadable.find("1/mountinfo: No such file"), std::string::npos);
}

TEST(HostScanner, NoProcAtAll) {
  HostScanner scanner(tree(kTrees + "does_not_exist"));
  HostEvidence e = scanner.scan();
  EXPECT_NE(e.processes.unreadable.find("cannot list"), std::string::npos);
  EXPECT_FALSE(e.runtime_disk.value);
  EXPECT_NE(e.runtime_disk.unreadable, "");
}

TEST(HostScanner, CmdlineSkippedOnRequest) {
  HostScanOptions o = tree(kTrees + "healthy_v2");
  o.cmdline = HostScanOptions::Cmdline::kSkip;
  HostScanner scanner(o);
  HostEvidence e = scanner.scan();
  EXPECT_EQ(helper(e, 2000)->cmdline_status, "skipped");
  EXPECT_EQ(helper(e, 2000)->sandbox_id, "");
}

TEST(HostScanner, ABlockingCmdlineReadDoesNotHoldTheScan) {
  // A FIFO blocks open() until a writer comes, as a cmdline read blocks on a
  // held mmap lock (moby#15204).
  fs::path dir = fs::temp_directory_path() / ("host_scanner_fifo_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(kTrees + "healthy_v2", dir, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const std::string fifo = (dir / "proc/2000/cmdline").string();
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  HostScanOptions o = tree(dir.string());
  o.cmdline_options.wait = 100ms;
  o.cmdline_options.stuck_after = 0ms;  // whatever is still being read after the wait is stuck
  HostScanner scanner(o);
  std::string status_2000, sandbox_2010;
  for (int scans = 0; scans < 100 && (status_2000 != "blocked" || sandbox_2010.empty()); ++scans) {
    HostEvidence e = scanner.scan();
    status_2000 = helper(e, 2000)->cmdline_status;
    sandbox_2010 = helper(e, 2010)->sandbox_id;
    EXPECT_EQ(helper(e, 2010)->role, "shim");
  }
  EXPECT_EQ(status_2000, "blocked");
  EXPECT_EQ(sandbox_2010, "01" + kSandbox.substr(2)) << "the other shim is still mapped";
  // Release the stuck worker.
  int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  if (fd >= 0) ::close(fd);
  fs::remove_all(dir);
}

// Threads of this process named `name` (/proc/self/task/*/comm).
int threads_named(const std::string& name) {
  int n = 0;
  for (const auto& task : fs::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    if (std::getline(comm, line) && line == name) ++n;
  }
  return n;
}

TEST(HostScanner, NoCmdlineThreadWaitsOnASteadyNode) {
  // Helpers are read once each: once every cmdline is answered, no worker
  // stays behind, and a later helper still gets its read.
  HostScanner scanner(tree(kTrees + "healthy_v2"));
  HostEvidence e = scanner.scan();
  for (int scans = 0; scans < 100 && helper(e, 2010)->sandbox_id.empty(); ++scans) e = scanner.scan();
  ASSERT_EQ(helper(e, 2010)->sandbox_id, "01" + kSandbox.substr(2));
  bool gone = false;
  for (int tries = 0; tries < 500 && !gone; ++tries) {
    gone = threads_named("cmdline-read") == 0;
    if (!gone) std::this_thread::sleep_for(10ms);  // polls for the worker's exit, bounded
  }
  EXPECT_TRUE(gone) << "a cmdline worker is still alive with nothing to read";
  e = scanner.scan();
  EXPECT_EQ(helper(e, 2010)->sandbox_id, "01" + kSandbox.substr(2)) << "answers are kept";
  EXPECT_EQ(threads_named("cmdline-read"), 0) << "nothing new to read: no worker started";
}

TEST(ResolveRuntimeRoot, DaemonFirstThenWhatExists) {
  auto none = [](const std::string&) { return false; };
  auto only_storage = [](const std::string& p) { return p == "/var/lib/containers/storage"; };
  EXPECT_EQ(resolve_runtime_root({"containerd"}, none), "/var/lib/containerd");
  EXPECT_EQ(resolve_runtime_root({"containerd", "dockerd"}, none), "/var/lib/docker");
  EXPECT_EQ(resolve_runtime_root({"crio"}, none), "/var/lib/containers/storage");
  EXPECT_EQ(resolve_runtime_root({}, only_storage), "/var/lib/containers/storage");
  EXPECT_EQ(resolve_runtime_root({}, none), "");
}

}  // namespace
}  // namespace plegscope::host

namespace plegscope::host {
namespace {

// A reader that answers from a fixed iterator text and records what it was asked.
struct RecordingReader : KernelStackReader {
  std::string text;
  std::vector<std::vector<int64_t>> asked;
  Result read(const std::vector<int64_t>& tids) override {
    asked.push_back(tids);
    return {parse_kernel_stacks(text), ""};
  }
};

// The shim_in_d_nfs tree scanned with --kernel-stacks, its stacks from `reader`.
HostScanOptions with_stacks(std::shared_ptr<KernelStackReader> reader) {
  HostScanOptions o = tree(kTrees + "shim_in_d_nfs");
  o.kernel_stacks_enabled = true;
  o.kernel_stack_reader = std::move(reader);
  return o;
}

TEST(HostScanner, KernelStacksAreReadOncePerScanForTheTasksInDOnly) {
  auto reader = std::make_shared<RecordingReader>();
  reader->text =
      "task 4242 4242 2 3\n __schedule+0x1/0x2\n schedule+0x1/0x2\n nfs_wait_bit_killable+0x1/0x2 [nfs]\n"
      "task 4242 4244 2 2\n __schedule+0x1/0x2\n rpc_wait_bit_killable+0x1/0x2 [sunrpc]\n";
  HostScanner scanner(with_stacks(reader));
  HostEvidence e = scanner.scan();
  ASSERT_EQ(reader->asked.size(), 1u);
  std::vector<int64_t> asked = reader->asked[0];
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(asked, (std::vector<int64_t>{4242, 4244})) << "only the runtime's tasks in D";
  const auto& k = e.processes.kernel_stacks;
  EXPECT_TRUE(k.enabled && k.available);
  EXPECT_EQ(k.tasks_asked, 2);
  EXPECT_EQ(k.tasks_read, 2);
  EXPECT_EQ(k.error, "");
  for (const auto& b : e.processes.blocked) {
    ASSERT_FALSE(b.kernel_stack.empty()) << b.tid;
    EXPECT_EQ(b.kernel_stack.back(), b.tid == 4242 ? "nfs_wait_bit_killable" : "rpc_wait_bit_killable");
  }
  scanner.scan();
  EXPECT_EQ(reader->asked.size(), 2u);
}

// The scan hands each stack over read: the frame that says what the task
// waits on, its class, and how much it says, so its reader interprets none.
TEST(HostScanner, KernelStacksAreHandedOverRead) {
  auto reader = std::make_shared<RecordingReader>();
  reader->text =
      "task 4242 4242 2 3\n __schedule+0x1/0x2\n schedule+0x1/0x2\n nfs_wait_bit_killable+0x1/0x2 [nfs]\n"
      "task 4242 4244 2 2\n __schedule+0x1/0x2\n futex_do_wait+0x1/0x2\n";
  HostEvidence e = HostScanner(with_stacks(reader)).scan();
  ASSERT_EQ(e.processes.blocked.size(), 2u);
  for (const auto& b : e.processes.blocked) {
    const KernelStackMeaning& m = b.kernel_meaning;
    if (b.tid == 4242) {
      EXPECT_EQ(m.top_frame, "nfs_wait_bit_killable");
      EXPECT_EQ(m.frame_class, FrameClass::kNetworkFs);
      EXPECT_EQ(m.says, StackSays::kClass);
    } else {
      EXPECT_EQ(m.top_frame, "futex_do_wait");
      EXPECT_EQ(m.frame_class, std::nullopt);
      EXPECT_EQ(m.says, StackSays::kFrames);
    }
  }
}

TEST(HostScanner, WhatTheRuntimeDaemonStartedAndStillWaitsOn) {
  testing::FakeClock clock;
  HostEvidence e = HostScanner(tree(kTrees + "cni_status_held"), clock).scan();
  std::vector<std::pair<int64_t, std::string>> seen;
  for (const auto& c : e.processes.daemon_children) seen.emplace_back(c.pid, c.comm);
  // Longest running first; the zombie, the plugin's own child and a
  // container's process are not the daemon's to wait on.
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, std::string>>{
                      {4120, "unpigz"}, {4100, "status-plugin"}, {4110, "status-plugin"}}));
  ASSERT_EQ(e.processes.daemon_children.size(), 3u);
  const DaemonChild& plugin = e.processes.daemon_children[1];
  EXPECT_EQ(plugin.daemon, "containerd");
  EXPECT_EQ(plugin.state, 'S');
  EXPECT_NEAR(*plugin.age_seconds, 64, 0.01);
  EXPECT_EQ(helper(e, 4100), nullptr) << "a plugin is no helper of the runtime's";

  HostScanOptions few = tree(kTrees + "cni_status_held");
  few.top_daemon_children = 1;
  EXPECT_EQ(HostScanner(few, clock).scan().processes.daemon_children.size(), 1u);
  EXPECT_TRUE(HostScanner(tree(kTrees + "healthy_v2"), clock).scan().processes.daemon_children.empty());
}

TEST(HostScanner, KernelStacksMissingOrUnavailableSayWhy) {
  auto reader = std::make_shared<RecordingReader>();
  reader->text = "task 4242 4242 2 1\n __refrigerator+0x1/0x2\n";  // 4244 not seen by the iterator
  HostEvidence e = HostScanner(with_stacks(reader)).scan();
  EXPECT_EQ(e.processes.kernel_stacks.tasks_read, 1);
  EXPECT_NE(e.processes.kernel_stacks.error.find("1 of 2 tasks in D without a stack"), std::string::npos)
      << e.processes.kernel_stacks.error;
  EXPECT_NE(e.processes.kernel_stacks.error.find("hostPID"), std::string::npos);

  HostScanOptions off = tree(kTrees + "shim_in_d_nfs");
  off.kernel_stacks_enabled = true;
  off.kernel_stacks_unavailable = "the agent lacks CAP_BPF and CAP_PERFMON";
  HostEvidence fallback = HostScanner(off).scan();
  EXPECT_FALSE(fallback.processes.kernel_stacks.available);
  EXPECT_EQ(fallback.processes.kernel_stacks.error, "the agent lacks CAP_BPF and CAP_PERFMON");
  ASSERT_EQ(fallback.processes.blocked.size(), 2u);
  for (const auto& b : fallback.processes.blocked) {
    EXPECT_TRUE(b.kernel_stack.empty());
    EXPECT_FALSE(b.wchan.empty()) << "the wchan path stands in";
  }
  HostEvidence not_asked = HostScanner(tree(kTrees + "shim_in_d_nfs")).scan();
  EXPECT_FALSE(not_asked.processes.kernel_stacks.enabled);
  EXPECT_EQ(not_asked.processes.kernel_stacks.error, "");
}

}  // namespace
}  // namespace plegscope::host
