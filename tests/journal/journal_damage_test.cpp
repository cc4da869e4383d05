// The journal as hosts leave it: corrupt files beside good ones, files
// rotated (renamed to archives) and vacuumed (deleted) while being read.
// Written by systemd-journal-remote; waits are on conditions, never sleeps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "fake_clock.h"
#include "journal/journal_follower.h"
#include "journal/journal_reader.h"
#include "journal_time.h"
#include "journal_writer.h"

namespace plegscope {
namespace {

namespace fs = std::filesystem;
using plegscope::testing::ExportEntry;
using plegscope::testing::FakeClock;
using plegscope::testing::unit_entry;
using plegscope::testing::write_journal;
using namespace std::chrono_literals;

constexpr auto kWait = 20s;                      // bounds a failure only
int64_t at(std::chrono::seconds offset) { return plegscope::testing::journal_at(offset); }

std::string syncing(int i) {
  return R"(E1124 05:00:00.000000 1234 pod_workers.go:1300] "Error syncing pod, skipping" pod="default/p)" +
         std::to_string(i) + "\"";
}

std::vector<ExportEntry> syncing_entries(int first, int count, std::chrono::seconds start) {
  std::vector<ExportEntry> out;
  for (int i = first; i < first + count; ++i) {
    out.push_back(unit_entry(at(start) + i * 1000, "kubelet.service", syncing(i)));
  }
  return out;
}

bool has_message(const JournalStatus& s, const std::string& text) {
  return std::any_of(s.marks.begin(), s.marks.end(), [&](const JournalMark& m) {
    return m.message.find(text) != std::string::npos;
  });
}

class JournalDamage : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(dir_, "");
    plegscope::testing::set_clock_to(clock_, at(10min));
  }

  JournalFollowerOptions options() const {
    JournalFollowerOptions o;
    o.journal_path = dir_ + "/live";
    o.reopen_interval = 100ms;
    o.max_marks = 1000;
    return o;
  }
  // Writes entries to a scratch file, then places a damaged copy in live/.
  std::string scratch_journal(const std::string& name, const std::vector<ExportEntry>& entries) {
    const std::string path = dir_ + "/" + name;
    EXPECT_TRUE(write_journal(path, entries));
    return path;
  }

  plegscope::testing::ScratchDir scratch_;
  const std::string& dir_ = scratch_.path();
  FakeClock clock_;
};

TEST_F(JournalDamage, CorruptFilesBesideAGoodOneCostOnlyThemselves) {
  REQUIRE_JOURNAL_REMOTE();
  const std::string live = dir_ + "/live";
  fs::create_directory(live);
  const std::string pleg =
      R"("Skipping pod synchronization" err="PLEG is not healthy: pleg was last seen active 3m5.2s ago; threshold is 3m0s")";
  ASSERT_TRUE(
      write_journal(live + "/system.journal", {unit_entry(at(0s), "kubelet.service", pleg)}));

  // Truncated: sd-journal ignores the whole file (its header names a longer arena).
  const std::string whole = scratch_journal("whole.journal", syncing_entries(0, 50, -5min));
  fs::copy_file(whole, live + "/truncated.journal");
  fs::resize_file(live + "/truncated.journal", 100000);
  // Random bytes under a journal's name.
  {
    std::ofstream garbage(live + "/garbage.journal", std::ios::binary);
    std::mt19937 rng(42);
    for (int i = 0; i < 65536; ++i) garbage.put(char(rng()));
  }
  // Valid header, garbage in the middle of the objects: readable up to the damage.
  const std::string middle = scratch_journal("middle.journal", syncing_entries(100, 200, -4min));
  fs::copy_file(middle, live + "/middle.journal");
  {
    std::fstream f(live + "/middle.journal", std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t pos = bytes.find("pod=\"default/p200\"");
    ASSERT_NE(pos, std::string::npos);
    std::mt19937 rng(7);
    f.seekp(std::streamoff(pos - 2000));
    for (int i = 0; i < 6000; ++i) f.put(char(rng()));
  }

  JournalFollower follower(options(), clock_);
  follower.start();
  ASSERT_TRUE(follower.wait_for(
      [&](const JournalStatus& s) {
        return has_message(s, "PLEG is not healthy") && has_message(s, "default/p100\"");
      },
      kWait))
      << follower.status().error;
  JournalStatus s = follower.status();
  // Nothing from the truncated file, nothing past the damage in the middle one.
  EXPECT_FALSE(has_message(s, "default/p0\""));
  EXPECT_FALSE(has_message(s, "default/p299\""));
  // sd-journal skips what it cannot read without failing the read: the good
  // file keeps the journal available.
  EXPECT_TRUE(s.available);
  EXPECT_EQ(s.error, "");
  follower.stop();
}

TEST_F(JournalDamage, RotatedAndVacuumedWhileFollowing) {
  REQUIRE_JOURNAL_REMOTE();
  const std::string live = dir_ + "/live";
  fs::create_directory(live);
  ASSERT_TRUE(write_journal(live + "/system.journal", syncing_entries(1, 1, 0s)));
  JournalFollower follower(options(), clock_);
  follower.start();
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks_total == 1; }, kWait));

  // journald's rotation: the active file renamed to an archive, a new one started.
  const std::string archive =
      live + "/system@0123456789abcdef0123456789abcdef-0000000000000001-0006610000000000.journal";
  fs::rename(live + "/system.journal", archive);
  ASSERT_TRUE(write_journal(live + "/system.journal", syncing_entries(2, 1, 1s)));
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks_total == 2; }, kWait));

  // journald's vacuum: the archive deleted.
  fs::remove(archive);
  ASSERT_TRUE(write_journal(live + "/system.journal", syncing_entries(3, 1, 2s)));
  ASSERT_TRUE(follower.wait_for([](const JournalStatus& s) { return s.marks_total == 3; }, kWait));

  JournalStatus s = follower.status();
  ASSERT_EQ(s.marks.size(), 3u)
      << "each entry once: the rename is not a new file's worth of entries";
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(s.marks[i].message.find("default/p" + std::to_string(i + 1) + "\""),
              std::string::npos);
  }
  EXPECT_EQ(s.entries_read, 3u);
  EXPECT_EQ(s.read_errors, 0u);
  EXPECT_TRUE(s.available);
}

TEST_F(JournalDamage, FileDeletedHalfwayThroughAReadThenANewOne) {
  REQUIRE_JOURNAL_REMOTE();
  const std::string live = dir_ + "/live";
  fs::create_directory(live);
  ASSERT_TRUE(write_journal(live + "/system.journal", syncing_entries(0, 100, 0s)));
  JournalFollowerOptions o = options();
  JournalReader reader(o);
  ASSERT_EQ(reader.open(live, at(-1min)), "");
  size_t marks = 0;
  auto count = [&](JournalMark&&) { ++marks; };
  auto first = reader.read(40, count);
  ASSERT_EQ(first.entries, 40u);

  // Vacuumed mid-read: the rest of the open file stays readable (sd-journal
  // holds it open and mapped) or is dropped; never an error, never a crash.
  fs::remove(live + "/system.journal");
  reader.process();
  auto rest = reader.read(1000, count);
  EXPECT_EQ(rest.error, 0);
  EXPECT_LE(first.entries + rest.entries, 100u);

  ASSERT_TRUE(write_journal(live + "/system.journal", syncing_entries(500, 5, 1min)));
  reader.process();
  size_t later = 0;
  bool saw_new = false;
  auto collect = [&](JournalMark&& m) {
    ++later;
    saw_new |= m.message.find("default/p504\"") != std::string::npos;
  };
  // The inotify event is already queued (the file was written before
  // process()), so the new file is read without waiting.
  auto after = reader.read(1000, collect);
  EXPECT_EQ(after.error, 0);
  EXPECT_EQ(after.entries, 5u);
  EXPECT_TRUE(saw_new);
}

}  // namespace
}  // namespace plegscope
