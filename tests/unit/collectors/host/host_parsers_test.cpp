// The host readers' pure parsers, on text as the kernel writes it and on
// truncated or malformed text (nullopt, never a crash or a wrong value).
#include <gtest/gtest.h>

#include "host/system_bus.h"
#include "host/cgroup_pids.h"
#include "host/diskstats.h"
#include "host/mountinfo.h"
#include "host/pod_cgroup.h"
#include "host/process_stat.h"
#include "host/wchan_access.h"

namespace plegscope::host {
namespace {

using namespace std::chrono_literals;

const char kShimStat[] =
    "4242 (containerd-shim) D 1 4242 4242 0 -1 4194560 1200 0 3 0 150 40 0 0 20 0 12 0 34820000 "
    "1234567168 2500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

TEST(ParseProcessStat, ReadsTheFieldsTheScannerUses) {
  auto s = parse_process_stat(kShimStat);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->pid, 4242);
  EXPECT_EQ(s->comm, "containerd-shim");
  EXPECT_EQ(s->state, 'D');
  EXPECT_EQ(s->ppid, 1);
  EXPECT_EQ(s->num_threads, 12);
  EXPECT_EQ(s->starttime, 34820000u);
}

TEST(ParseProcessStat, CommWithSpacesAndParentheses) {
  // A process may name itself anything; the kernel ends comm at the last ')'.
  auto s = parse_process_stat("77 (evil) Z 5 (x) Z 5 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0 0\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->comm, "evil) Z 5 (x");
  EXPECT_EQ(s->state, 'Z');
  EXPECT_EQ(s->ppid, 5);
  EXPECT_EQ(s->starttime, 99u);
}

TEST(ParseProcessStat, RuncInitKeepsItsBrackets) {
  auto s = parse_process_stat("3000 (runc:[2:INIT]) D 2000 3000 3000 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->comm, "runc:[2:INIT]");
  EXPECT_EQ(runtime_role(s->comm), RuntimeRole::kOci);
}

TEST(ParseProcessStat, TruncatedOrMalformedIsNullopt) {
  std::string full = kShimStat;
  // Every prefix that stops before starttime is incomplete.
  size_t starttime_at = full.find("34820000");
  for (size_t cut = 0; cut < starttime_at; cut += 7) EXPECT_FALSE(parse_process_stat(full.substr(0, cut))) << cut;
  EXPECT_FALSE(parse_process_stat("garbage\n"));
  EXPECT_FALSE(parse_process_stat("x (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n"));   // pid
  EXPECT_FALSE(parse_process_stat("1 (a) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n"));  // state
  EXPECT_FALSE(parse_process_stat("1 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 x 0 5\n"));   // threads
  EXPECT_FALSE(parse_process_stat("1 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99999999999999999999\n"));
}

TEST(ParseUptimeAndBtime, KernelFormats) {
  EXPECT_DOUBLE_EQ(*parse_uptime("350000.12 690000.00\n"), 350000.12);
  EXPECT_DOUBLE_EQ(*parse_uptime("42\n"), 42.0);
  EXPECT_FALSE(parse_uptime(""));
  EXPECT_FALSE(parse_uptime("soon\n"));
  EXPECT_FALSE(parse_uptime("12.\n"));
  EXPECT_EQ(*parse_btime("cpu  1 2 3\ncpu0 1 2 3\nintr 5\nbtime 1763600000\nprocesses 9\n"), 1763600000);
  EXPECT_FALSE(parse_btime("cpu  1 2 3\n"));
  EXPECT_FALSE(parse_btime("btime later\n"));
}

TEST(RuntimeRole, NamesAsTheKernelCutsThem) {
  EXPECT_EQ(runtime_role("containerd-shim"), RuntimeRole::kShim);  // containerd-shim-runc-v2, cut to 15
  EXPECT_EQ(runtime_role("conmon"), RuntimeRole::kConmon);
  EXPECT_EQ(runtime_role("runc"), RuntimeRole::kOci);
  EXPECT_EQ(runtime_role("runc:[1:CHILD]"), RuntimeRole::kOci);
  EXPECT_EQ(runtime_role("crun"), RuntimeRole::kOci);
  for (auto d : {"containerd", "crio", "dockerd", "cri-dockerd"}) EXPECT_EQ(runtime_role(d), RuntimeRole::kDaemon) << d;
  for (auto n : {"containerd-", "runcx", "crio-x", "kubelet", "", "docker"}) EXPECT_EQ(runtime_role(n), RuntimeRole::kNone) << n;
}

std::string nul_joined(std::initializer_list<const char*> args) {
  std::string out;
  for (auto a : args) out.append(a).push_back('\0');
  return out;
}

TEST(ParseHelperOwner, ShimV2ShimV1AndConmon) {
  EXPECT_EQ(*parse_helper_owner(nul_joined({"/usr/bin/containerd-shim-runc-v2", "-namespace", "k8s.io", "-id",
                                            "abc123", "-address", "/run/containerd/containerd.sock"}),
                                RuntimeRole::kShim),
            "abc123");
  EXPECT_EQ(*parse_helper_owner(nul_joined({"containerd-shim", "-namespace", "moby", "-workdir",
                                            "/var/lib/containerd/io.containerd.runtime.v1.linux/moby/def456",
                                            "-address", "/run/containerd/containerd.sock"}),
                                RuntimeRole::kShim),
            "def456");
  EXPECT_EQ(*parse_helper_owner(nul_joined({"/usr/bin/conmon", "-b", "/run/x", "-c", "ctr789", "--cgroup2"}),
                                RuntimeRole::kConmon),
            "ctr789");
  EXPECT_EQ(*parse_helper_owner(nul_joined({"/usr/bin/conmon", "--cid=ctr789"}), RuntimeRole::kConmon), "ctr789");
}

TEST(ParseHelperOwner, NoOwnerIsNullopt) {
  EXPECT_FALSE(parse_helper_owner(nul_joined({"/usr/bin/containerd-shim-runc-v2", "-id"}), RuntimeRole::kShim));
  EXPECT_FALSE(parse_helper_owner("", RuntimeRole::kShim));
  EXPECT_FALSE(parse_helper_owner(nul_joined({"conmon", "-c", "x"}), RuntimeRole::kShim));  // wrong flag for a shim
  EXPECT_FALSE(parse_helper_owner(nul_joined({"runc", "-id", "x"}), RuntimeRole::kOci));
}

TEST(ParseProcCgroup, V1PidsControllerAndV2Unified) {
  auto v1 = parse_proc_cgroup(
      "12:pids:/system.slice/docker.service\n11:cpu,cpuacct:/system.slice/docker.service\n"
      "1:name=systemd:/system.slice/docker.service\n0::/\n");
  ASSERT_TRUE(v1);
  EXPECT_EQ(*v1->v1_pids, "/system.slice/docker.service");
  EXPECT_EQ(*v1->unified, "/");
  auto v2 = parse_proc_cgroup("0::/system.slice/containerd.service\n");
  ASSERT_TRUE(v2);
  EXPECT_FALSE(v2->v1_pids);
  EXPECT_EQ(*v2->unified, "/system.slice/containerd.service");
  // "pids" must be a whole controller name, not a substring.
  auto other = parse_proc_cgroup("3:pidsx:/a\n0::/b\n");
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->v1_pids);
}

TEST(ParseProcCgroup, MalformedIsNullopt) {
  EXPECT_FALSE(parse_proc_cgroup(""));
  EXPECT_FALSE(parse_proc_cgroup("this is not a cgroup file\n"));
  EXPECT_FALSE(parse_proc_cgroup("12:pids\n"));
  EXPECT_FALSE(parse_proc_cgroup("12:pids:relative\n"));
}

TEST(ParsePids, MaxMeansNoLimit) {
  auto unlimited = parse_pids_max("max\n");
  ASSERT_TRUE(unlimited);
  EXPECT_FALSE(unlimited->limit);
  EXPECT_EQ(*parse_pids_max("4000\n")->limit, 4000);
  EXPECT_FALSE(parse_pids_max("lots\n"));
  EXPECT_FALSE(parse_pids_max(""));
  EXPECT_FALSE(parse_pids_max("-1\n"));
  EXPECT_EQ(*parse_pids_current("3800\n"), 3800);
  EXPECT_FALSE(parse_pids_current("38 00\n"));
}

const char kMountinfo[] =
    "21 0 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
    "23 21 0:21 / /proc rw,nosuid shared:12 - proc proc rw\n"
    "31 21 8:16 / /var/lib/containerd rw,relatime shared:20 master:3 - xfs /dev/sdb rw\n"
    "32 31 0:52 / /var/lib/containerd/io.containerd.grpc.v1.cri/sandboxes/abc/shm rw - tmpfs shm rw\n"
    "40 21 8:33 / /mnt/with\\040space rw - ext4 /dev/sdc1 rw\n";

TEST(ParseMountinfo, FieldsAndEscapes) {
  auto mounts = parse_mountinfo(kMountinfo);
  ASSERT_TRUE(mounts);
  ASSERT_EQ(mounts->size(), 5u);
  EXPECT_EQ((*mounts)[2].major, 8u);
  EXPECT_EQ((*mounts)[2].minor, 16u);
  EXPECT_EQ((*mounts)[2].fs_type, "xfs");  // after optional fields ("master:3")
  EXPECT_EQ((*mounts)[2].source, "/dev/sdb");
  EXPECT_EQ((*mounts)[4].mount_point, "/mnt/with space");
}

TEST(ParseMountinfo, LongestWholeComponentPrefix) {
  auto mounts = *parse_mountinfo(kMountinfo);
  EXPECT_EQ(mount_for_path(mounts, "/var/lib/containerd")->mount_point, "/var/lib/containerd");
  EXPECT_EQ(mount_for_path(mounts, "/var/lib/containerd/io.containerd.content.v1")->mount_point,
            "/var/lib/containerd");
  // /var/lib/containerd2 is not under /var/lib/containerd.
  EXPECT_EQ(mount_for_path(mounts, "/var/lib/containerd2")->mount_point, "/");
  EXPECT_EQ(mount_for_path(mounts, "/var/lib/docker")->mount_point, "/");
  mounts.pop_back();
  mounts.erase(mounts.begin());
  EXPECT_EQ(mount_for_path(mounts, "/var/lib/docker"), nullptr);  // no "/" mount left
}

TEST(ParseMountinfo, OvermountedPointTakesTheLastEntry) {
  auto mounts = *parse_mountinfo(
      "21 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
      "30 21 8:16 / /var/lib/docker rw - xfs /dev/sdb rw\n"
      "31 30 8:32 / /var/lib/docker rw - xfs /dev/sdc rw\n");
  EXPECT_EQ(mount_for_path(mounts, "/var/lib/docker/overlay2")->source, "/dev/sdc");
}

TEST(ParseMountinfo, MalformedIsNullopt) {
  EXPECT_FALSE(parse_mountinfo(""));
  EXPECT_FALSE(parse_mountinfo("21 0 8:1 / /\n"));                              // truncated
  EXPECT_FALSE(parse_mountinfo("21 0 8:1 / / rw shared:1 ext4 /dev/sda1 rw\n"));  // no separator
  EXPECT_FALSE(parse_mountinfo("21 0 8-1 / / rw - ext4 /dev/sda1 rw\n"));         // maj:min
  EXPECT_FALSE(parse_mountinfo("21 0 8:1 / relative rw - ext4 /dev/sda1 rw\n"));
}

TEST(ParseDiskstats, KernelFieldCounts) {
  auto disks = parse_diskstats(
      "   8       0 sda 100 1 800 200 50 2 400 300 4 900 500\n"  // 14 fields (kernel < 4.18)
      "   8      16 sdb 100 1 800 200 50 2 400 300 0 900 500 7 0 56 70\n"          // 18
      " 259       0 nvme0n1 1 0 8 1 2 0 16 2 0 3 3 0 0 0 0 5 6\n");                  // 20
  ASSERT_TRUE(disks);
  ASSERT_EQ(disks->size(), 3u);
  const auto& sda = (*disks)[0];
  EXPECT_EQ(sda.name, "sda");
  EXPECT_EQ(sda.reads, 100u);
  EXPECT_EQ(sda.read_ms, 200u);
  EXPECT_EQ(sda.writes, 50u);
  EXPECT_EQ(sda.write_ms, 300u);
  EXPECT_EQ(sda.in_flight, 4u);
  EXPECT_EQ(sda.io_ms, 900u);
  EXPECT_EQ((*disks)[1].discards, 7u);
  EXPECT_EQ((*disks)[1].discard_ms, 70u);
  EXPECT_EQ((*disks)[2].flushes, 5u);
  EXPECT_EQ((*disks)[2].flush_ms, 6u);
  EXPECT_EQ(find_disk(*disks, 259, 0), &(*disks)[2]);
  EXPECT_EQ(find_disk(*disks, 8, 1), nullptr);
}

TEST(ParseDiskstats, TruncatedOrMalformedIsNullopt) {
  EXPECT_FALSE(parse_diskstats(""));
  EXPECT_FALSE(parse_diskstats("   8      16 sdb 1 2 3\n"));
  EXPECT_FALSE(parse_diskstats("   8      16 sdb 1 2 3 4 5 6 7 8 9 10 x\n"));
  EXPECT_FALSE(parse_diskstats("   8      16 sdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n"));  // 21
}

DiskCounters counters(uint64_t ios, uint64_t ms, uint64_t io_ms) {
  DiskCounters d;
  d.reads = ios / 2;
  d.writes = ios - ios / 2;
  d.read_ms = ms / 2;
  d.write_ms = ms - ms / 2;
  d.io_ms = io_ms;
  return d;
}

TEST(DiskRates, LatencyPerCompletedIoAndShareBusy) {
  auto r = disk_rates(counters(15000, 30000, 100000), counters(15040, 40000, 106000), 10s);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->completed_ios, 40u);
  EXPECT_DOUBLE_EQ(*r->latency_ms, 250.0);
  EXPECT_DOUBLE_EQ(r->utilization, 0.6);
}

TEST(DiskRates, NoCompletedIoHasNoLatencyButCanBeBusy) {
  // An IO stuck in flight for the whole interval: nothing completes, the
  // device is busy the whole time.
  auto r = disk_rates(counters(100, 50, 1000), counters(100, 50, 11000), 10s);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->latency_ms);
  EXPECT_DOUBLE_EQ(r->utilization, 1.0);
}

TEST(DiskRates, ThirtyTwoBitWrapIsCountedAResetIsNot) {
  const uint64_t wrap = uint64_t{1} << 32;
  DiskCounters before, after;
  before.reads = wrap - 10;  // a 32-bit kernel's unsigned long about to wrap
  after.reads = 10;
  before.read_ms = wrap - 20;
  after.read_ms = 20;
  auto wrapped = disk_rates(before, after, 10s);
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(wrapped->completed_ios, 20u);
  EXPECT_DOUBLE_EQ(*wrapped->latency_ms, 2.0);
  // A counter going down from above 2^32 is a replaced device, not a wrap.
  before.reads = wrap << 8;
  EXPECT_FALSE(disk_rates(before, after, 10s));
  EXPECT_FALSE(disk_rates(counters(1, 1, 1), counters(2, 2, 2), 0s));
}

// The kernel's rule for /proc/<pid>/wchan (proc_pid_wchan ->
// ptrace_may_access, PTRACE_MODE_READ_FSCREDS): same uid on all four, and the
// target's permitted capabilities within the reader's effective ones, unless
// the reader has CAP_SYS_PTRACE.
TEST(WchanHidden, FollowsTheKernelsPtraceReadRule) {
  const char* full = "Uid:\t0\t0\t0\t0\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\n"
                     "CapEff:\t000001ffffffffff\n";
  const char* dropped = "Name:\tplegscope\nUid:\t0\t0\t0\t0\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n";
  const char* ptrace = "Uid:\t0\t0\t0\t0\nCapPrm:\t0000000000080000\nCapEff:\t0000000000080000\n";
  const char* user = "Uid:\t1000\t1000\t1000\t1000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n";
  auto creds = [](const char* s) { return parse_status_creds(s); };
  ASSERT_TRUE(creds(full));
  EXPECT_EQ(creds(full)->cap_permitted, 0x1ffffffffffULL);
  EXPECT_EQ(creds(user)->uid_fs, 1000);
  EXPECT_EQ(wchan_hidden("ovl_sync_fs", creds(dropped), creds(full)), WchanHidden::kNo);
  EXPECT_EQ(wchan_hidden("", creds(dropped), creds(full)), WchanHidden::kUnreadable);
  EXPECT_EQ(wchan_hidden("0", creds(dropped), creds(full)), WchanHidden::kMissingCapabilities);
  EXPECT_EQ(wchan_hidden("0", creds(dropped), creds(user)), WchanHidden::kOtherUser);
  EXPECT_EQ(wchan_hidden("0", creds(full), creds(full)), WchanHidden::kDenied)
      << "the read is allowed: something else (an LSM, a non-dumpable task) hides it";
  EXPECT_EQ(wchan_hidden("0", creds(ptrace), creds(user)), WchanHidden::kDenied);
  EXPECT_EQ(wchan_hidden("0", creds(dropped), std::nullopt), WchanHidden::kUnknownCredentials);
  EXPECT_STREQ(wchan_hidden_name(WchanHidden::kMissingCapabilities), "missing_capabilities");
}

TEST(WchanHidden, MalformedStatusIsNullopt) {
  EXPECT_FALSE(parse_status_creds(""));
  EXPECT_FALSE(parse_status_creds("Uid:\t0\t0\nCapPrm:\t0\nCapEff:\t0\n")) << "four uids";
  EXPECT_FALSE(parse_status_creds("Uid:\t0\t0\t0\t0\nCapPrm:\tzz\nCapEff:\t0\n"));
  EXPECT_FALSE(parse_status_creds("Uid:\t0\t0\t0\t0\nCapEff:\t0\n")) << "no CapPrm";
}

TEST(PodUidFromCgroup, CgroupfsAndSystemdDrivers) {
  EXPECT_EQ(pod_uid_from_cgroup("0::/kubepods/burstable/pod0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47/abc\n"),
            "0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47");
  EXPECT_EQ(pod_uid_from_cgroup("0::/kubepods.slice/kubepods-besteffort.slice/"
                                "kubepods-besteffort-pod0b7e3c2a_91d4_4f6e_8a25_6c1d9e0f3b47.slice/cri-containerd-1.scope\n"),
            "0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47");
  EXPECT_EQ(pod_uid_from_cgroup("12:pids:/kubepods/pod0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47\n0::/\n"),
            "0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47");
}

TEST(PodUidFromCgroup, NoPodIsNullopt) {
  EXPECT_FALSE(pod_uid_from_cgroup("0::/system.slice/containerd.service\n"));
  EXPECT_FALSE(pod_uid_from_cgroup("0::/podman/pod0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47\n")) << "not under kubepods";
  EXPECT_FALSE(pod_uid_from_cgroup("0::/kubepods/burstable/pod0b7e3c2a-91d4\n")) << "cut short";
  EXPECT_FALSE(pod_uid_from_cgroup("0::/kubepods/burstable/pod0b7e3c2a-91d4-4f6e-8a25-6c1d9e0f3b47x/\n"));
  EXPECT_FALSE(pod_uid_from_cgroup(""));
}

}  // namespace
}  // namespace plegscope::host

namespace plegscope::host {
namespace {

TEST(SystemBus, TheBusDaemonsByComm) {
  EXPECT_TRUE(bus_daemon_comm("dbus-daemon"));
  EXPECT_TRUE(bus_daemon_comm("dbus-broker"));
  EXPECT_FALSE(bus_daemon_comm("dbus-broker-lau")) << "the launcher routes no message";
  EXPECT_FALSE(bus_daemon_comm("dbus"));
  EXPECT_FALSE(bus_daemon_comm("systemd"));
}

TEST(SystemBus, InSystemSliceOnEitherHierarchyAndFromAnotherNamespace) {
  EXPECT_TRUE(in_system_slice("0::/system.slice/dbus.service\n"));
  EXPECT_TRUE(in_system_slice("0::/system.slice/dbus-broker.service"));
  // cgroup v1: the name=systemd line says it.
  EXPECT_TRUE(in_system_slice("12:pids:/system.slice/dbus.service\n1:name=systemd:/system.slice/dbus.service\n0::/\n"));
  // The agent in a pod with its own cgroup namespace sees host paths so.
  EXPECT_TRUE(in_system_slice("0::/../../system.slice/dbus.service\n"));
  EXPECT_FALSE(in_system_slice("0::/user.slice/user-1000.slice/user@1000.service/session.slice/dbus.service\n"));
  EXPECT_FALSE(in_system_slice("0::/system.slice\n")) << "the slice itself is no service of it";
  EXPECT_FALSE(in_system_slice("0::/\n"));
  EXPECT_FALSE(in_system_slice(""));
  EXPECT_FALSE(in_system_slice("garbage without colons\n"));
}

TEST(SystemBus, StalledStates) {
  for (char s : {'T', 't', 'D'}) EXPECT_TRUE(bus_state_stalled(s)) << s;
  for (char s : {'S', 'R', 'I', 'Z', 'X'}) EXPECT_FALSE(bus_state_stalled(s)) << s;
}

}  // namespace
}  // namespace plegscope::host
