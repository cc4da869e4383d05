// JournalReader and JournalFollower against real journal files written by
// systemd-journal-remote into a private directory (no journald runs).
// Waits are on conditions (JournalFollower::wait_for), never sleeps; the
// timeouts only bound a failure.
#include "journal/journal_follower.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>

#include "common/periodic_tasks.h"
#include "fake_clock.h"
#include "journal/journal_reader.h"
#include "journal_time.h"
#include "journal_writer.h"
#include "source_tree.h"

namespace plegscope {
namespace {

namespace fs = std::filesystem;
using plegscope::testing::FakeClock;
using plegscope::testing::journal_at;
using plegscope::testing::kernel_entry;
using plegscope::testing::manager_entry;
using plegscope::testing::ScratchDir;
using plegscope::testing::set_clock_to;
using plegscope::testing::unit_entry;
using plegscope::testing::write_journal;
using namespace std::chrono_literals;

constexpr auto kWait = 20s;  // bounds a failure only

const std::string kPlegLine =
    R"(E1124 05:00:00.000000    1234 kubelet.go:2345] "Skipping pod synchronization" )"
    R"(err="PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s")";

int64_t wall_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class JournalDir : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_NE(dir_, ""); }

  std::string file(const std::string& name = "system.journal") const { return dir_ + "/" + name; }

  int64_t at(std::chrono::seconds offset) const { return journal_at(offset); }

  JournalFollowerOptions options() const {
    JournalFollowerOptions o;
    o.journal_path = dir_;
    o.reopen_interval = 200ms;
    return o;
  }

  ScratchDir scratch_;
  const std::string& dir_ = scratch_.path();
};

std::vector<std::string> kinds(const std::vector<JournalMark>& marks) {
  std::vector<std::string> out;
  for (const JournalMark& m : marks) out.emplace_back(mark_kind_name(m.kind));
  return out;
}

TEST_F(JournalDir, ReaderMarksTheKubeletsPlegLineAndSkipsTheRest) {
  REQUIRE_JOURNAL_REMOTE();
  ASSERT_TRUE(write_journal(
      file(),
      {unit_entry(at(-20min), "kubelet.service", kPlegLine),  // before the window
       manager_entry(at(-4min) - 1000, "kubelet.service",
                     "Started kubelet.service - kubelet: The Kubernetes Node Agent.",
                     "39f53479d3a045ac8e11786248231fbf"),
       unit_entry(
           at(-4min), "kubelet.service",
           R"(I1124 04:56:00.000000    1234 server.go:487] "Kubelet version" kubeletVersion="v1.29.3")"),
       unit_entry(at(-3min), "kubelet.service",
                  R"(I1124 04:57:00.000000 1234 kubelet.go:2400] "SyncLoop UPDATE")"),
       unit_entry(at(-2min), "sshd.service", kPlegLine),  // not the kubelet
       unit_entry(at(0s), "kubelet.service", kPlegLine)}));
  JournalFollowerOptions o = options();
  FakeClock clock;
  set_clock_to(clock, at(5min));
  JournalReader reader(o);
  ASSERT_EQ(reader.open(dir_, at(5min) - o.lookback.count() * 1000000), "");
  std::vector<JournalMark> marks;
  auto got = reader.read(100, [&](JournalMark&& m) { marks.push_back(std::move(m)); });
  EXPECT_EQ(got.error, 0);
  // The kubelet's four entries in the window (the sshd line is not matched at all).
  EXPECT_EQ(got.entries, 4u);
  ASSERT_EQ(kinds(marks),
            (std::vector<std::string>{"unit_started", "kubelet_started", "pleg_not_healthy"}));
  EXPECT_EQ(marks[0].unit, "kubelet.service") << "PID 1's line is about UNIT=, not init.scope";
  EXPECT_EQ(marks[2].unit, "kubelet.service");
  EXPECT_EQ(marks[2].message, kPlegLine);
  EXPECT_EQ(marks[2].realtime_usec, at(0s));
  EXPECT_FALSE(marks[2].message_cut);
  // Nothing new: a second read returns nothing.
  EXPECT_EQ(reader.read(100, [&](JournalMark&&) { ADD_FAILURE() << "read twice"; }).entries, 0u);
}

// The kernel transport: a hung-task report, one line per entry, with a
// unit's line and unrelated kernel lines between; a trace the kernel cut
// (a pause) and a later one; the kernel's "suppressed" last word.
TEST_F(JournalDir, FollowerAssemblesTheKernelsHungTaskReports) {
  REQUIRE_JOURNAL_REMOTE();
  std::ifstream in(source_tree::root() + "/tests/fixtures/hung_task/6.1_shim_overlay_umount.txt");
  ASSERT_TRUE(in);
  std::vector<testing::ExportEntry> entries;
  int64_t t = at(-1min);
  for (std::string line; std::getline(in, line);) {
    entries.push_back(kernel_entry(t += 50, line));
    entries.push_back(kernel_entry(t += 50, "eth0: renamed from veth3a1b2c"));
    entries.push_back(unit_entry(t += 50, "kubelet.service", R"(I1124 04:59:00.000000 1 log.go:1] "Probe")"));
  }
  entries.push_back(kernel_entry(at(-40s), "INFO: task containerd:2001 blocked for more than 120 seconds."));
  entries.push_back(kernel_entry(at(-40s) + 50, " __schedule+0x351/0xa20"));
  // journald's own line (driver transport) that it missed kernel records.
  entries.push_back(unit_entry(at(-40s) + 100, "systemd-journald.service", "Missed 40 kernel messages", "300",
                               {{"MESSAGE_ID", "e9bf28e6e834481bb6f48f548ad13606"}, {"_TRANSPORT", "driver"}}));
  entries.push_back(kernel_entry(at(-30s), "INFO: task runc:9120 blocked for more than 120 seconds."));
  entries.push_back(kernel_entry(at(-30s) + 50, "Call Trace:"));
  // Twenty seconds on: another trace, not the cut one's.
  entries.push_back(kernel_entry(at(-10s), "Call Trace:"));
  entries.push_back(kernel_entry(at(-10s) + 50, " xfs_buf_lock+0x33/0x110 [xfs]"));
  entries.push_back(kernel_entry(at(-5s), "Future hung task reports are suppressed, see sysctl kernel.hung_task_warnings"));
  ASSERT_TRUE(write_journal(file(), entries));
  FakeClock clock;
  set_clock_to(clock, at(0s));
  JournalFollower follower(options(), clock);
  follower.start();
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.hung_tasks_suppressed; }, kWait));
  JournalStatus s = follower.status();
  ASSERT_EQ(s.hung_tasks.size(), 3u);
  EXPECT_EQ(s.hung_tasks[1].pid, 2001);
  EXPECT_TRUE(s.hung_tasks[1].truncated) << "journald missed kernel lines after its first frame";
  s.hung_tasks.erase(s.hung_tasks.begin() + 1);
  const host::HungTaskReport& shim = s.hung_tasks[0];
  EXPECT_EQ(shim.pid, 4242);
  EXPECT_EQ(shim.realtime_usec, at(-1min) + 50);
  ASSERT_GE(shim.frames.size(), 5u);
  EXPECT_EQ(shim.frames[4], "ovl_sync_fs");
  ASSERT_EQ(shim.classes.size(), 2u);
  EXPECT_EQ(shim.classes[1], host::FrameClass::kOverlayfs);
  EXPECT_FALSE(shim.truncated);
  EXPECT_EQ(s.hung_tasks[1].pid, 9120);
  EXPECT_TRUE(s.hung_tasks[1].frames.empty()) << "the later trace's frames are not the cut one's";
  EXPECT_TRUE(s.hung_tasks[1].truncated);
  EXPECT_EQ(s.hung_tasks_suppressed_since_usec, at(-5s));
  EXPECT_EQ(s.hung_tasks_total, 3u);
  EXPECT_GT(s.kernel_lines_read, 40u);
  EXPECT_TRUE(s.marks.empty()) << "no kubelet line here is a mark";
}

TEST_F(JournalDir, ReaderCutsHugeAndCleansBinaryMessages) {
  REQUIRE_JOURNAL_REMOTE();
  std::string huge =
      R"(E1124 05:00:00.000000 1234 pod_workers.go:1300] "Error syncing pod, skipping" err=")";
  huge += std::string(1 << 20, 'x');
  static const char kBinary[] = "E1124 \"PLEG is not healthy\"\0\xff\xfe\nsecond line";
  ASSERT_TRUE(write_journal(
      file(), {unit_entry(at(0s), "kubelet.service", huge),
               unit_entry(at(1s), "kubelet.service", std::string(kBinary, sizeof(kBinary) - 1))}));
  JournalFollowerOptions o = options();
  o.max_message_bytes = 200;
  JournalReader reader(o);
  ASSERT_EQ(reader.open(dir_, at(-1min)), "");
  std::vector<JournalMark> marks;
  auto got = reader.read(100, [&](JournalMark&& m) { marks.push_back(std::move(m)); });
  EXPECT_EQ(got.error, 0);
  ASSERT_EQ(kinds(marks), (std::vector<std::string>{"error_syncing_pod", "pleg_not_healthy"}));
  EXPECT_LE(marks[0].message.size(), 200u);
  EXPECT_TRUE(marks[0].message_cut);
  EXPECT_EQ(marks[0].message.rfind(R"(E1124 05:00:00.000000 1234 pod_workers.go:1300])", 0), 0u);
  EXPECT_EQ(
      marks[1].message,
      "E1124 \"PLEG is not healthy\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDsecond line");
}

TEST_F(JournalDir, FollowerSeesEntriesAppendedWhileItFollows) {
  REQUIRE_JOURNAL_REMOTE();
  const int64_t now = wall_micros();
  ASSERT_TRUE(write_journal(file(), {unit_entry(now - 60'000'000, "kubelet.service", kPlegLine)}));
  SystemClock clock;
  JournalFollower follower(options(), clock);
  follower.start();
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks.size() == 1; }, kWait))
      << follower.status().error;
  EXPECT_TRUE(follower.status().available);
  EXPECT_EQ(follower.status().error, "");

  ASSERT_TRUE(write_journal(
      file(),
      {manager_entry(now, "containerd.service",
                     "Stopping containerd.service - containerd container runtime...",
                     "de5b426a63be47a7b6ac3eaac82e2f6f", "stop"),
       manager_entry(now + 1, "containerd.service",
                     "Stopped containerd.service - containerd container runtime.",
                     "9d1aaa27d60140bd96365438aad20286", "stop"),
       unit_entry(
           now + 2, "containerd.service",
           R"(time="2026-11-24T05:00:00Z" level=info msg="containerd successfully booted in 0.05s")")}));
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks.size() == 4; }, kWait));
  JournalStatus s = follower.status();
  EXPECT_EQ(kinds(s.marks), (std::vector<std::string>{"pleg_not_healthy", "unit_stopping",
                                                      "unit_stopped", "runtime_started"}));
  EXPECT_EQ(s.marks[1].unit, "containerd.service");
  EXPECT_EQ(s.entries_read, 4u);
  follower.stop();
}

// The agent's own arrangement: no thread of the follower's, the readers'
// thread serving it between (and during) its jobs.
TEST_F(JournalDir, FollowerServedByAnotherThreadSeesEntriesAppended) {
  REQUIRE_JOURNAL_REMOTE();
  const int64_t now = wall_micros();
  ASSERT_TRUE(write_journal(file(), {unit_entry(now - 60'000'000, "kubelet.service", kPlegLine)}));
  SystemClock clock;
  JournalFollower follower(options(), clock);
  PeriodicTasks readers("test-readers", clock);
  std::atomic<int> job_runs{0};
  readers.every(1h, [&] { ++job_runs; });  // runs once, then the thread only waits
  readers.serve(follower);
  readers.start();
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks.size() == 1; }, kWait))
      << follower.status().error;
  ASSERT_TRUE(write_journal(
      file(), {unit_entry(now + 1, "kubelet.service", R"("Error syncing pod, skipping" pod="default/new")")}));
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks.size() == 2; }, kWait))
      << "the entry appended while the serving thread waited for its next job";
  const JournalStatus s = follower.status();
  EXPECT_EQ(kinds(s.marks), (std::vector<std::string>{"pleg_not_healthy", "error_syncing_pod"}));
  EXPECT_EQ(s.marks[1].realtime_usec, now + 1) << "the entry's own time, whenever it was read";
  EXPECT_EQ(job_runs, 1);
  readers.stop();
}

TEST_F(JournalDir, ReopenResumesAfterTheLastEntryRead) {
  REQUIRE_JOURNAL_REMOTE();
  ASSERT_TRUE(write_journal(file(), {unit_entry(at(0s), "kubelet.service", kPlegLine),
                                     unit_entry(at(1s), "kubelet.service", kPlegLine)}));
  JournalFollowerOptions o = options();
  JournalReader reader(o);
  ASSERT_EQ(reader.open(dir_, at(-1min)), "");
  EXPECT_EQ(reader.read(100, [](JournalMark&&) {}).entries, 2u);
  reader.close();
  ASSERT_TRUE(write_journal(
      file(), {unit_entry(at(2s), "kubelet.service", R"("Error syncing pod, skipping" pod="default/new")")}));
  // The start time would replay all three; the cursor kept across the reopen reads only the new one.
  ASSERT_EQ(reader.open(dir_, at(-1min)), "");
  std::vector<JournalMark> marks;
  EXPECT_EQ(reader.read(100, [&](JournalMark&& m) { marks.push_back(std::move(m)); }).entries, 1u);
  ASSERT_EQ(kinds(marks), std::vector<std::string>{"error_syncing_pod"});
}

TEST_F(JournalDir, RingKeepsTheNewestMarks) {
  REQUIRE_JOURNAL_REMOTE();
  std::vector<plegscope::testing::ExportEntry> entries;
  for (int i = 0; i < 10; ++i) {
    entries.push_back(
        unit_entry(at(std::chrono::seconds(i)), "kubelet.service",
                   "\"Error syncing pod, skipping\" pod=\"default/p" + std::to_string(i) + "\""));
  }
  ASSERT_TRUE(write_journal(file(), entries));
  JournalFollowerOptions o = options();
  o.max_marks = 3;
  FakeClock clock;
  set_clock_to(clock, at(1min));
  JournalFollower follower(o, clock);
  follower.start();
  ASSERT_TRUE(
      follower.wait_for([](const JournalStatus& s) { return s.entries_read == 10; }, kWait));
  JournalStatus s = follower.status();
  ASSERT_EQ(s.marks.size(), 3u);
  EXPECT_EQ(s.marks_total, 10u);
  EXPECT_EQ(s.marks_dropped, 7u);
  EXPECT_NE(s.marks.back().message.find("p9"), std::string::npos);
  EXPECT_NE(s.marks.front().message.find("p7"), std::string::npos);
}

TEST(JournalMissing, NamesTheDirectoryAndKeepsTrying) {
  JournalFollowerOptions o;
  o.journal_path = "/nonexistent/plegscope/journal";
  o.reopen_interval = 50ms;
  SystemClock clock;
  JournalFollower follower(o, clock);
  follower.start();
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return !s.error.empty(); }, kWait));
  JournalStatus s = follower.status();
  EXPECT_FALSE(s.available);
  EXPECT_EQ(s.error, "no journal at /nonexistent/plegscope/journal");
  EXPECT_EQ(s.path, "/nonexistent/plegscope/journal");
  follower.stop();  // returns although the thread is between attempts
}

TEST(JournalMissing, NoDefaultDirectory) {
  JournalFollowerOptions o;
  o.default_paths = {"/nonexistent/a", "/nonexistent/b"};
  SystemClock clock;
  JournalFollower follower(o, clock);
  follower.start();
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return !s.error.empty(); }, kWait));
  EXPECT_EQ(follower.status().error, "no journal at /nonexistent/a or /nonexistent/b");
}

TEST_F(JournalDir, ResolverPrefersTheFlagThenTheFirstDefaultThatExists) {
  EXPECT_EQ(resolve_journal_path("/given", {dir_}), "/given");
  EXPECT_EQ(resolve_journal_path("", {"/nonexistent/x", dir_}), dir_);
  EXPECT_EQ(resolve_journal_path("", {"/nonexistent/x"}), "");
}

TEST_F(JournalDir, AppearsLaterIsPickedUp) {
  REQUIRE_JOURNAL_REMOTE();
  const std::string later = dir_ + "/later";
  JournalFollowerOptions o = options();
  o.journal_path = later;
  FakeClock clock;
  set_clock_to(clock, at(1min));
  JournalFollower follower(o, clock);
  follower.start();
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return !s.error.empty(); }, kWait));
  fs::create_directory(later);
  ASSERT_TRUE(
      write_journal(later + "/system.journal", {unit_entry(at(0s), "kubelet.service", kPlegLine)}));
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks.size() == 1; }, kWait));
  EXPECT_TRUE(follower.status().available);
  EXPECT_EQ(follower.status().error, "");
}

}  // namespace
}  // namespace plegscope
