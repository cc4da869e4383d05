// The kernel's hung-task reports, on traces in the formats kernels from 4.14
// to 6.7 print (tests/fixtures/hung_task): the task, how long, the frames
// innermost first, and what the frames say the task waits on.
#include "host/hung_task.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include "source_tree.h"

namespace plegscope::host {
namespace {

const std::string kDir = source_tree::fixtures() + "/hung_task/";

std::vector<std::string> lines_of(const std::string& name) {
  std::ifstream in(kDir + name);
  EXPECT_TRUE(in) << kDir + name;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> names(const std::vector<FrameClass>& classes) {
  std::vector<std::string> out;
  for (FrameClass c : classes) out.push_back(frame_class_name(c));
  return out;
}

using Names = std::vector<std::string>;

TEST(HungTask, Kernel415OldTaskLineAndAddressedFrames) {
  auto reports = parse_hung_tasks(lines_of("4.15_ext4_jbd2.txt"));
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.comm, "containerd-shim");
  EXPECT_EQ(r.pid, 2816);
  EXPECT_EQ(r.blocked_seconds, 120);
  EXPECT_EQ(r.kernel, "4.15.0-112-generic");
  ASSERT_GE(r.frames.size(), 4u);
  EXPECT_EQ(r.frames[0], "__schedule");
  EXPECT_EQ(r.frames[2], "jbd2_log_wait_commit");
  EXPECT_EQ(std::count(r.frames.begin(), r.frames.end(), "wait_woken"), 0) << "a '? ' frame is unreliable";
  EXPECT_EQ(names(r.classes), Names{"storage"});
}

TEST(HungTask, Kernel414ArmFramesAndDmesgTimestamps) {
  auto reports = parse_hung_tasks(lines_of("4.14_arm_fuse_writeback.txt"));
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.comm, "kworker/u8:0") << "the last ':' ends the name";
  EXPECT_EQ(r.pid, 5);
  EXPECT_EQ(r.kernel, "4.14.17-v7+");
  ASSERT_GE(r.frames.size(), 5u);
  EXPECT_EQ(r.frames[0], "__schedule");
  EXPECT_EQ(r.frames[4], "write_cache_pages");
  EXPECT_EQ(names(r.classes), (Names{"storage", "network_fs"}));
}

TEST(HungTask, Kernel510TaskLineUnreliableFramesAndUserRegisters) {
  auto reports = parse_hung_tasks(lines_of("5.10_runc_cgroup.txt"));
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.comm, "runc:[2:INIT]");
  EXPECT_EQ(r.pid, 9120);
  EXPECT_EQ(r.blocked_seconds, 241);
  EXPECT_EQ(r.kernel, "5.10.0-21-amd64");
  EXPECT_EQ(r.frames.size(), 10u) << "two '? ' frames and the RIP/RSP lines left out";
  EXPECT_EQ(r.tgid, 0) << "5.10's task line names no tgid";
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(names(r.classes), Names{"cgroup"});
}

TEST(HungTask, Kernel61OverlayfsUmountWithModuleNames) {
  auto reports = parse_hung_tasks(lines_of("6.1_shim_overlay_umount.txt"));
  ASSERT_EQ(reports.size(), 1u);
  const auto& r = reports[0];
  EXPECT_EQ(r.comm, "containerd-shim");
  EXPECT_EQ(r.pid, 4242);
  EXPECT_EQ(r.kernel, "6.1.0-13-amd64");
  ASSERT_GE(r.frames.size(), 6u);
  EXPECT_EQ(r.frames[4], "ovl_sync_fs") << "the module name after the offset is not part of it";
  EXPECT_EQ(names(r.classes), (Names{"storage", "overlayfs"}));
}

TEST(HungTask, Kernel67TwoReportsWithTgid) {
  auto reports = parse_hung_tasks(lines_of("6.7_nfs_tgid.txt"));
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].comm, "containerd-shim");
  EXPECT_EQ(reports[0].pid, 5120);
  EXPECT_EQ(reports[0].tgid, 5118) << "a thread of process 5118";
  EXPECT_EQ(names(reports[0].classes), Names{"network_fs"});
  EXPECT_EQ(reports[1].tgid, 5297);
  EXPECT_EQ(reports[1].comm, "runc");
  EXPECT_EQ(reports[1].pid, 5301);
  EXPECT_EQ(names(reports[1].classes), Names{"reclaim"});
  EXPECT_GT(reports[1].line, reports[0].line);
}

TEST(HungTask, ClassifiesTheFreezerThoughItNeverReportsFrozenTasks) {
  EXPECT_EQ(classify_frame("__refrigerator"), FrameClass::kFreezer);
  EXPECT_EQ(classify_frame("mem_cgroup_handle_over_high"), FrameClass::kCgroup);
  EXPECT_EQ(classify_frame("try_to_free_mem_cgroup_pages"), FrameClass::kReclaim) << "reclaim before cgroup";
  EXPECT_FALSE(classify_frame("schedule"));
  EXPECT_FALSE(classify_frame("futex_wait_queue"));
}

TEST(HungTask, NoReportInOrdinaryKernelLines) {
  std::vector<std::string> lines = {"audit: type=1400 audit(1.2:3): apparmor=\"DENIED\"",
                                    "EXT4-fs (sda1): mounted filesystem with ordered data mode",
                                    "task blocked for more than",
                                    "INFO: task noname blocked for more than 120 seconds.",
                                    "INFO: task x:12 blocked for more than lots seconds."};
  EXPECT_TRUE(parse_hung_tasks(lines).empty());
}

TEST(HungTask, FramesAreBounded) {
  std::vector<std::string> lines = {"INFO: task loop:7 blocked for more than 120 seconds."};
  for (int i = 0; i < 1000; ++i) lines.push_back(" f" + std::to_string(i) + "+0x1/0x2");
  auto reports = parse_hung_tasks(lines);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].frames.size(), kMaxHungTaskFrames);
}

// The journal's kernel transport: one line per entry, each with its time.
// A fixture fed line by line, 1 ms apart, from `start_usec`.
void feed_fixture(HungTaskAssembler& a, const std::string& name, int64_t start_usec) {
  int64_t t = start_usec;
  for (const auto& line : lines_of(name)) a.feed(line, t += 1000);
}

TEST(HungTaskAssembler, EveryFixtureLineByLineGivesWhatTheParserGives) {
  for (const char* name : {"4.15_ext4_jbd2.txt", "4.14_arm_fuse_writeback.txt", "5.10_runc_cgroup.txt",
                           "6.1_shim_overlay_umount.txt", "6.7_nfs_tgid.txt"}) {
    HungTaskAssembler a;
    feed_fixture(a, name, 1'700'000'000'000'000);
    auto whole = parse_hung_tasks(lines_of(name));
    ASSERT_EQ(a.reports().size(), whole.size()) << name;
    for (size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(a.reports()[i].frames, whole[i].frames) << name;
      EXPECT_EQ(a.reports()[i].pid, whole[i].pid) << name;
      EXPECT_EQ(a.reports()[i].realtime_usec, 1'700'000'000'000'000 + 1000 * int64_t(whole[i].line + 1)) << name;
    }
  }
}

TEST(HungTaskAssembler, UnrelatedKernelLinesBetweenFramesAreSkipped) {
  HungTaskAssembler a;
  int64_t t = 1'000'000;
  for (const auto& line : lines_of("6.1_shim_overlay_umount.txt")) {
    a.feed(line, t += 100);
    a.feed("audit: type=1400 audit(1700000000.1:42): apparmor=\"DENIED\" operation=\"open\"", t += 100);
    a.feed("eth0: renamed from veth3a1b2c", t += 100);
  }
  ASSERT_EQ(a.reports().size(), 1u);
  EXPECT_EQ(a.reports()[0].frames, parse_hung_tasks(lines_of("6.1_shim_overlay_umount.txt"))[0].frames);
  EXPECT_FALSE(a.reports()[0].truncated);
}

TEST(HungTaskAssembler, APauseEndsATruncatedTraceBeforeALaterOneTakesItsFrames) {
  HungTaskAssembler a;
  a.feed("INFO: task containerd-shim:4242 blocked for more than 122 seconds.", 1'000'000);
  a.feed("Call Trace:", 1'000'100);
  // Ten minutes later, a warning's trace: not this report's frames.
  a.feed("Call Trace:", 601'000'000);
  a.feed(" xfs_buf_lock+0x33/0x110 [xfs]", 601'000'100);
  ASSERT_EQ(a.reports().size(), 1u);
  EXPECT_TRUE(a.reports()[0].frames.empty());
  EXPECT_TRUE(a.reports()[0].truncated);
  EXPECT_TRUE(a.reports()[0].classes.empty());
}

TEST(HungTaskAssembler, AnotherKernelReportEndsIt) {
  HungTaskAssembler a;
  a.feed("INFO: task runc:5301 blocked for more than 143 seconds.");
  a.feed("Call Trace:");
  a.feed(" schedule+0x44/0x140");
  a.feed("------------[ cut here ]------------");
  a.feed(" shrink_folio_list+0x7b2/0xc40");
  ASSERT_EQ(a.reports().size(), 1u);
  EXPECT_EQ(a.reports()[0].frames, std::vector<std::string>{"schedule"});
}

TEST(HungTaskAssembler, RateLimitedLinesMarkTheTraceAndTheWatchdogsLastWordIsKept) {
  HungTaskAssembler a;
  a.feed("INFO: task containerd-shim:4242 blocked for more than 122 seconds.", 1000);
  a.feed("hung_task: 7 callbacks suppressed", 2000);
  a.feed(" ovl_sync_fs+0x40/0x60 [overlay]", 3000);
  ASSERT_EQ(a.reports().size(), 1u);
  EXPECT_TRUE(a.reports()[0].truncated) << "lines of it were dropped";
  EXPECT_EQ(names(a.reports()[0].classes), Names{"overlayfs"});
  EXPECT_FALSE(a.reports_suppressed());
  const uint64_t before = a.generation();
  a.feed("Future hung task reports are suppressed, see sysctl kernel.hung_task_warnings", 9000);
  EXPECT_TRUE(a.reports_suppressed());
  EXPECT_EQ(a.suppressed_since_usec(), 9000);
  EXPECT_GT(a.generation(), before);
  a.feed(" nfs_getattr+0x1d5/0x3a0 [nfs]", 9100);
  EXPECT_EQ(a.reports()[0].frames.size(), 1u) << "the report ended with the watchdog's last word";
}

TEST(HungTaskAssembler, LostKernelLinesMarkTheOpenTraceOnly) {
  for (const char* lost : {"printk: 12 messages suppressed.", "** 5 printk messages dropped **",
                           "Missed 40 kernel messages"}) {
    HungTaskAssembler a;
    a.feed(lost);  // before any report: nothing to mark
    a.feed("INFO: task runc:5301 blocked for more than 143 seconds.");
    a.feed(" shrink_folio_list+0x7b2/0xc40");
    EXPECT_FALSE(a.reports()[0].truncated) << lost;
    a.feed(lost);
    EXPECT_TRUE(a.reports()[0].truncated) << lost;
  }
}

TEST(HungTaskAssembler, KeepsTheNewestReportsAndBoundsEachTraceInBytes) {
  HungTaskAssemblerOptions o;
  o.max_reports = 3;
  o.max_frame_bytes = 100;
  HungTaskAssembler a(o);
  for (int pid = 1; pid <= 5; ++pid) {
    a.feed("INFO: task shim:" + std::to_string(pid) + " blocked for more than 120 seconds.");
    for (int i = 0; i < 20; ++i) a.feed(" a_rather_long_kernel_function_" + std::to_string(i) + "+0x1/0x2");
  }
  ASSERT_EQ(a.reports().size(), 3u);
  EXPECT_EQ(a.reports().front().pid, 3);
  EXPECT_EQ(a.reports().back().pid, 5);
  EXPECT_EQ(a.reports_total(), 5u);
  EXPECT_EQ(a.reports_dropped(), 2u);
  size_t bytes = 0;
  for (const auto& f : a.reports().back().frames) bytes += f.size();
  EXPECT_LE(bytes, 100u);
  EXPECT_GE(a.reports().back().frames.size(), 2u);
  EXPECT_TRUE(a.reports().back().truncated);
}

}  // namespace
}  // namespace plegscope::host
