// HostScanner's cgroup v2 witness over the v2 fixture trees
// (tests/fixtures/host/v2_*, written by make_v2_trees.py): frozen helpers
// found and tied to their sandbox, stopped pods and containers named by pod,
// each container's populated state, limits and events, PSI deltas between
// two scans, and "unavailable" (never 0) for what a kernel lacks.
#include <gtest/gtest.h>

#include "host_fixture_options.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "host/host_scanner.h"

#include "fake_clock.h"
#include "source_tree.h"

namespace plegscope::host {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kTrees = source_tree::fixtures() + "/host/";
const std::string kSandbox = "5f1c2a9e8b7d4c3f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071";
const std::string kPodA = "3a1f9c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b";
const std::string kPodB = "7c2e4a6b-8d0f-4a1c-9e3b-5d7f9a1c3e5b";
const std::string kPodC = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b";

HostScanOptions tree(const std::string& root) {
  return fixture_tree_options(root);
}

const CgroupV2Unit* unit(const HostEvidence& e, const std::string& role, const std::string& pod = "") {
  for (const auto& u : e.cgroup_v2.units)
    if (u.role == role && (pod.empty() || u.pod_uid == pod)) return &u;
  return nullptr;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(CgroupV2Witness, FrozenShimIsBlockedWithItsSandbox) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "v2_systemd_frozen_shim"), clock);
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.cgroup_v2.mode, "unified");
  EXPECT_EQ(e.cgroup_v2.driver, "systemd");
  ASSERT_EQ(e.processes.blocked.size(), 1u);
  const BlockedTask& b = e.processes.blocked[0];
  EXPECT_EQ(b.pid, 4500);
  EXPECT_EQ(b.state, 'S');  // a frozen v2 task sleeps, it is not in D
  EXPECT_EQ(b.wchan, "do_freezer_trap");
  EXPECT_EQ(b.sandbox_id, kSandbox);
  EXPECT_NE(b.frozen_cgroup.find("kubepods-besteffort-pod7c2e4a6b_8d0f"), std::string::npos);
  EXPECT_FALSE(b.freeze_incomplete);
  EXPECT_EQ(e.processes.in_d, 0);
  // Time frozen is tracked across scans like time in D.
  clock.step(30s);
  e = scanner.scan();
  ASSERT_EQ(e.processes.blocked.size(), 1u);
  EXPECT_DOUBLE_EQ(e.processes.blocked[0].seconds_in_d, 30);
  const CgroupV2Unit* helper = unit(e, "helper", kPodB);
  ASSERT_TRUE(helper);
  EXPECT_TRUE(helper->stopped());
  EXPECT_EQ(helper->owner, "containerd-shim");
  EXPECT_EQ(helper->pod_uid, kPodB);
}

TEST(CgroupV2Witness, StoppedPodsAndContainersNamedByPod) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "v2_systemd_frozen_shim"), clock);
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.cgroup_v2.pods_read, 3);
  const CgroupV2Unit* pod = unit(e, "pod", kPodB);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->frozen, std::optional<bool>(true));
  const CgroupV2Unit* c = unit(e, "container", kPodB);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->container_id.substr(0, 4), "b2b2");
  EXPECT_FALSE(unit(e, "pod", kPodC));  // nothing wrong with it but its container's process count
  ASSERT_EQ(e.cgroup_v2.containers.size(), 4u);  // and pod C's conmon scope
  for (const auto& k : e.cgroup_v2.containers) {
    if (k.pod_uid == kPodC) {
      EXPECT_EQ(k.populated, std::optional<bool>(k.kind == "conmon"));
    }
    if (k.pod_uid == kPodA) {
      EXPECT_EQ(k.populated, std::optional<bool>(true));
    }
    EXPECT_EQ(k.stopped, k.pod_uid == kPodB);
  }
  // How long each stays stopped counts from the first scan that saw it so,
  // on the injected clock (container_frozen judges it).
  EXPECT_DOUBLE_EQ(pod->seconds_stopped, 0);
  clock.step(12s);
  e = scanner.scan();
  pod = unit(e, "pod", kPodB);
  c = unit(e, "container", kPodB);
  ASSERT_TRUE(pod && c);
  EXPECT_DOUBLE_EQ(pod->seconds_stopped, 12);
  EXPECT_DOUBLE_EQ(c->seconds_stopped, 12);
  EXPECT_DOUBLE_EQ(unit(e, "kubepods")->seconds_stopped, 0);  // not stopped: no time
}

TEST(CgroupV2Witness, AHelpersOwnCgroupWithOomKillsIsListed) {
  HostScanner scanner(tree(kTrees + "v2_systemd_frozen_shim"));
  HostEvidence e = scanner.scan();
  const CgroupV2Unit* conmon = nullptr;
  for (const auto& u : e.cgroup_v2.units)
    if (u.role == "helper" && u.owner == "conmon") conmon = &u;
  ASSERT_TRUE(conmon);
  EXPECT_EQ(conmon->pod_uid, kPodC);
  EXPECT_EQ(conmon->memory_oom_kill, std::optional<uint64_t>(2));
  EXPECT_FALSE(conmon->stopped());
  for (const auto& u : e.cgroup_v2.units)  // the runtime's unit is not listed again as a helper's
    EXPECT_FALSE(u.role == "helper" && u.path == "system.slice/containerd.service");
}

TEST(CgroupV2Witness, RuntimeKubeletAndKubepodsLimits) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "v2_systemd_frozen_shim"), clock);
  HostEvidence e = scanner.scan();
  const CgroupV2Unit* rt = unit(e, "runtime");
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->owner, "containerd");
  EXPECT_EQ(rt->path, "system.slice/containerd.service");
  EXPECT_EQ(rt->pids_current, std::optional<int64_t>(4000));
  EXPECT_EQ(rt->pids_max, std::optional<int64_t>(4915));
  EXPECT_EQ(rt->pids_events_max, std::optional<uint64_t>(7));
  EXPECT_EQ(rt->pids_events_local_max, std::optional<uint64_t>(7));
  EXPECT_EQ(rt->memory_high, std::optional<uint64_t>(150));
  EXPECT_EQ(rt->memory_oom_kill, std::optional<uint64_t>(1));
  EXPECT_TRUE(rt->unavailable.empty());
  EXPECT_EQ(rt->unreadable, "");
  const CgroupV2Unit* kubelet = unit(e, "kubelet");
  ASSERT_TRUE(kubelet);
  EXPECT_TRUE(kubelet->pids_unlimited);
  const CgroupV2Unit* kp = unit(e, "kubepods");
  ASSERT_TRUE(kp);
  EXPECT_EQ(kp->nr_dying_descendants, std::optional<uint64_t>(2400));
}

TEST(CgroupV2Witness, PressureDeltasBetweenScans) {
  const fs::path tmp = fs::temp_directory_path() / ("plegscope-v2-psi-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::copy(kTrees + "v2_systemd_frozen_shim", tmp, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  testing::FakeClock clock;
  HostScanner scanner(tree(tmp.string()), clock);
  scanner.watch_pods({kPodA});
  HostEvidence e = scanner.scan();
  const CgroupV2Unit* rt = unit(e, "runtime");
  ASSERT_TRUE(rt);
  ASSERT_EQ(rt->pressure.size(), 3u);
  EXPECT_FALSE(rt->pressure[1].some_seconds.has_value());  // first read: no interval yet
  const fs::path io = tmp / "sys/fs/cgroup/system.slice/containerd.service/io.pressure";
  std::ofstream(io) << "some avg10=80.00 avg60=40.00 avg300=9.00 total=17000000\n"
                       "full avg10=70.00 avg60=30.00 avg300=8.00 total=12500000\n";
  clock.step(10s);
  e = scanner.scan();
  rt = unit(e, "runtime");
  ASSERT_TRUE(rt);
  const PsiStall& s = rt->pressure[1];
  EXPECT_EQ(s.resource, "io");
  EXPECT_DOUBLE_EQ(s.interval_seconds, 10);
  EXPECT_DOUBLE_EQ(*s.some_seconds, 8.0);  // 17 s - 9 s of stall
  EXPECT_DOUBLE_EQ(*s.full_seconds, 8.0);  // 12.5 s - 4.5 s
  EXPECT_DOUBLE_EQ(*s.some_share(), 0.8);
  const CgroupV2Unit* pod = unit(e, "pod", kPodA);  // watched: its limits and pressure read
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->pids_max, std::optional<int64_t>(1024));
  ASSERT_EQ(pod->pressure.size(), 3u);
  EXPECT_DOUBLE_EQ(*pod->pressure[0].some_seconds, 0);
  fs::remove_all(tmp);
}

TEST(CgroupV2Witness, CgroupfsDriverWithoutLocalEventsOrPsi) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "v2_cgroupfs_pids"), clock);
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.cgroup_v2.driver, "cgroupfs");
  EXPECT_EQ(e.cgroup_v2.pods_read, 3);
  const CgroupV2Unit* rt = unit(e, "runtime");
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->pids_events_max, std::optional<uint64_t>(37));
  EXPECT_FALSE(rt->pids_events_local_max.has_value());
  EXPECT_TRUE(has(rt->unavailable, "pids.events.local"));
  EXPECT_TRUE(has(rt->unavailable, "cpu.pressure"));
  EXPECT_TRUE(rt->pressure.empty());  // PSI off: no stall figure at all, not a zero one
  // A freeze asked and not completed.
  const CgroupV2Unit* c = unit(e, "container", kPodA);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->freeze_incomplete());
  for (const auto& k : e.cgroup_v2.containers) {
    if (k.pod_uid == kPodC) {
      EXPECT_EQ(k.populated, std::optional<bool>(true));
    }
  }
}

// Every pod's refused forks and OOM kills, watched or not: a pod at its
// pids.max (or OOM-killing) with no call in flight is listed with them
// (found on a real cgroup v2 node: tests/vm, pids_max and oom_restart_loop).
TEST(CgroupV2Witness, UnwatchedPodAtItsPidsMaxOrOomKilledIsListed) {
  const fs::path tmp = fs::temp_directory_path() / ("plegscope-v2-events-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::copy(kTrees + "v2_cgroupfs_pids", tmp, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path b = tmp / ("sys/fs/cgroup/kubepods/besteffort/pod" + kPodB);
  std::ofstream(b / "pids.events") << "max 3\n";
  std::ofstream(b / "memory.events") << "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\noom_group_kill 0\n";
  testing::FakeClock clock;
  HostScanner scanner(tree(tmp.string()), clock);
  HostEvidence e = scanner.scan();
  const CgroupV2Unit* pod = unit(e, "pod", kPodB);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->pids_events_max, std::optional<uint64_t>(3));
  EXPECT_EQ(pod->memory_oom_kill, std::optional<uint64_t>(2));
  EXPECT_FALSE(pod->pids_max.has_value());  // limits stay the watched pods'
  EXPECT_TRUE(pod->pressure.empty());
  EXPECT_EQ(unit(e, "pod", kPodC), nullptr);  // nothing refused, nothing killed: not listed
  fs::remove_all(tmp);
}

// Kernels before 6.12 count a refused fork in the forking container's own
// pids.events, not in the pod's whose pids.max refused it (Debian 12's 6.1,
// tests/vm pids_max): the pod is listed with its containers' count; a kernel
// that counts it in the pod and up the tree is not counted twice.
TEST(CgroupV2Witness, RefusedForksCountedInTheContainerListThePod) {
  const fs::path tmp = fs::temp_directory_path() / ("plegscope-v2-forks-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::copy(kTrees + "v2_cgroupfs_pids", tmp, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path pod_dir = tmp / ("sys/fs/cgroup/kubepods/pod" + kPodC);
  fs::path scope;
  for (const auto& d : fs::directory_iterator(pod_dir))
    if (d.is_directory()) scope = d.path();
  ASSERT_FALSE(scope.empty());
  std::ofstream(scope / "pids.events") << "max 5\n";
  testing::FakeClock clock;
  {
    HostScanner scanner(tree(tmp.string()), clock);
    const HostEvidence e = scanner.scan();
    const CgroupV2Unit* pod = unit(e, "pod", kPodC);
    ASSERT_TRUE(pod);
    EXPECT_EQ(pod->pids_events_max, std::optional<uint64_t>(5));  // the pod's own says 0
  }
  std::ofstream(pod_dir / "pids.events") << "max 5\n";  // the same forks, counted up the tree too
  HostScanner scanner(tree(tmp.string()), clock);
  HostEvidence e = scanner.scan();
  const CgroupV2Unit* pod = unit(e, "pod", kPodC);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->pids_events_max, std::optional<uint64_t>(5));
  fs::remove_all(tmp);
}

TEST(CgroupV2Witness, HybridHostReadsTheUnifiedMount) {
  testing::FakeClock clock;
  HostScanner scanner(tree(kTrees + "v2_hybrid"), clock);
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.cgroup_v2.mode, "hybrid");
  EXPECT_NE(e.cgroup_v2.root.find("fs/cgroup/unified"), std::string::npos);
  ASSERT_EQ(e.processes.blocked.size(), 1u);
  EXPECT_EQ(e.processes.blocked[0].pid, 2000);
  EXPECT_EQ(e.processes.blocked[0].frozen_cgroup, "plegscope-freeze");
}

TEST(CgroupV2Witness, V1HostReadsNothing) {
  HostScanner scanner(tree(kTrees + "cgroup_v1_docker"));
  HostEvidence e = scanner.scan();
  EXPECT_EQ(e.cgroup_v2.mode, "v1");
  EXPECT_TRUE(e.cgroup_v2.units.empty());
}

TEST(CgroupV2Witness, MalformedFilesSayWhichAndNothingIsInvented) {
  HostScanner scanner(tree(kTrees + "v2_malformed"));
  HostEvidence e = scanner.scan();
  const CgroupV2Unit* rt = unit(e, "runtime");
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->unreadable, "cgroup.events: malformed");
  EXPECT_FALSE(rt->populated || rt->frozen || rt->freeze || rt->pids_current || rt->pids_max ||
               rt->pids_events_max || rt->memory_high);
  EXPECT_TRUE(rt->pressure.empty());
  const CgroupV2Unit* kp = unit(e, "kubepods");
  ASSERT_TRUE(kp);
  EXPECT_FALSE(kp->nr_dying_descendants.has_value());
  EXPECT_TRUE(e.processes.blocked.empty());
}

TEST(CgroupV2Witness, MissingFilesAreUnavailableNotZero) {
  HostScanner scanner(tree(kTrees + "v2_missing"));
  HostEvidence e = scanner.scan();
  const CgroupV2Unit* rt = unit(e, "runtime");
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->populated, std::optional<bool>(true));
  EXPECT_FALSE(rt->frozen.has_value());
  for (const char* f : {"cgroup.events frozen", "cgroup.freeze", "pids.events", "memory.events", "cpu.pressure"})
    EXPECT_TRUE(has(rt->unavailable, f)) << f;
  EXPECT_FALSE(rt->memory_oom_kill.has_value());
  const CgroupV2Unit* kubelet = unit(e, "kubelet");
  ASSERT_TRUE(kubelet);
  EXPECT_NE(kubelet->unreadable.find("700/cgroup"), std::string::npos);
  const CgroupV2Unit* kp = unit(e, "kubepods");
  ASSERT_TRUE(kp);
  EXPECT_TRUE(has(kp->unavailable, "cgroup.stat"));
}

}  // namespace
}  // namespace plegscope::host
