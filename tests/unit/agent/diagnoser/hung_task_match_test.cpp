// The kernel's hung-task reports (tests/fixtures/hung_task, fed line by line
// as the journal's kernel transport gives them) on /diagnose: tied to the
// blocked process they name (by the task's id, or the tgid 6.7 prints),
// carried into shim_hung's evidence and words with what their frames wait
// on, and said to be older when printed before the scan saw the stall.
#include <gtest/gtest.h>

#include <fstream>

#include "diagnoser/hung_task_match.h"
#include "report/host_sections.h"
#include "report/html.h"
#include "report/json.h"
#include "report/text.h"
#include "snapshot_builder.h"
#include "source_tree.h"

namespace plegscope::testing {
namespace {

const char* kSandbox = "4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f";

int64_t usec(TimePoint t) { return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count(); }

// The fixture's reports as the follower keeps them, its first line logged at `at`.
std::vector<host::HungTaskReport> reports_of(const std::string& name, TimePoint at) {
  std::ifstream in(source_tree::root() + "/tests/fixtures/hung_task/" + name);
  EXPECT_TRUE(in) << name;
  host::HungTaskAssembler a;
  int64_t t = usec(at);
  for (std::string line; std::getline(in, line);) a.feed(line, t += 1000);
  return a.reports();
}

host::HostEvidence host_with(std::vector<host::BlockedTask> blocked) {
  host::HostEvidence h;
  h.processes.total = 300;
  h.processes.helpers.push_back({5118, 1, "containerd-shim", "shim", 'S', 12, 600.0, kSandbox, "", "known"});
  h.processes.blocked = std::move(blocked);
  return h;
}

// Process 5118's thread 5120 in D for `seconds` as of the scan, 2 s before now.
Builder shim_thread_in_d(double seconds) {
  Builder b;
  b.s.host = host_with({{5118, 5120, "containerd-shim", "shim", 'D', "rpc_wait_bit_killable", seconds, kSandbox, ""}});
  b.s.host_scanned_at = kNow - std::chrono::seconds(2);
  b.s.pods_by_sandbox[kSandbox] = {"shop", "web-0", "uid-web-0", kSandbox, ""};
  return b;
}

TEST(HungTaskMatch, AThreadsReportIsTiedToItsProcessWithItsClassInEvidenceAndWords) {
  Builder b = shim_thread_in_d(300);
  // Printed 100 s ago: within the five minutes the scan has seen it in D.
  b.s.journal.hung_tasks = reports_of("6.7_nfs_tgid.txt", kNow - std::chrono::seconds(100));
  Report r = b.report();
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  const auto& k = r.host.processes.blocked[0].hung_task;
  ASSERT_TRUE(k);
  EXPECT_EQ(k->pid, 5120);
  EXPECT_EQ(k->tgid, 5118);
  EXPECT_EQ(k->blocked_seconds, 143);
  EXPECT_EQ(k->classes, std::vector<std::string>{"network_fs"});
  EXPECT_FALSE(k->predates_stall_seconds) << "printed during the stall the scan measures";
  EXPECT_EQ(r.host.hung_tasks.size(), 2u) << "the other report (runc 5301) is listed, tied to nothing";

  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  bool in_evidence = false;
  for (const auto& e : c->evidence)
    in_evidence = in_evidence || (e.signal == "kernel_hung_task_blocked_seconds{pid=5120,tgid=5118,class=network_fs}" &&
                                  e.value == 143);
  EXPECT_TRUE(in_evidence) << c->summary;
  EXPECT_NE(c->summary.find("the kernel's hung-task report on thread 5120"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("a network filesystem"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("rpc_wait_bit_killable"), std::string::npos) << c->summary;
  EXPECT_EQ(c->summary.find("earlier stall"), std::string::npos) << c->summary;

  const std::string text = render_text(r);
  EXPECT_NE(text.find("kernel: the kernel's hung-task report on thread 5120"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel hung-task report: "), std::string::npos) << text;
  EXPECT_NE(text.find("runc pid 5301 (tgid 5297)"), std::string::npos) << text;
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<br>kernel: the kernel&#39;s hung-task report on thread 5120"), std::string::npos);
  EXPECT_NE(html.find("<td>kernel hung-task report</td>"), std::string::npos);
}

TEST(HungTaskMatch, AReportPrintedBeforeTheScanSawTheStallIsSaidToBeOlder) {
  Builder b = shim_thread_in_d(30);
  // Printed ten minutes ago; the scan first saw the thread in D 32 s ago.
  b.s.journal.hung_tasks = reports_of("6.7_nfs_tgid.txt", kNow - std::chrono::minutes(10));
  Report r = b.report();
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  const auto& k = r.host.processes.blocked[0].hung_task;
  ASSERT_TRUE(k);
  ASSERT_TRUE(k->predates_stall_seconds);
  EXPECT_NEAR(*k->predates_stall_seconds, 600 - 32, 0.01);
  const Cause* c = find(r, CauseId::kShimHung);
  ASSERT_TRUE(c);
  EXPECT_NE(c->summary.find("an older kernel hung-task report on thread 5120"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("before plegscope first saw it in D"), std::string::npos) << c->summary;
  EXPECT_NE(c->summary.find("may tell of an earlier stall, not this one"), std::string::npos) << c->summary;
  EXPECT_EQ(c->summary.find("the kernel's hung-task report"), std::string::npos) << c->summary;
  bool flagged = false;
  for (const auto& e : c->evidence) flagged = flagged || e.signal.find("before_stall=true") != std::string::npos;
  EXPECT_TRUE(flagged);
}

TEST(HungTaskMatch, TheTgidTiesAThreadsReportWhenOnlyTheMainTaskIsSeenInD) {
  Builder b;
  b.s.host = host_with({{5297, 5297, "runc", "oci_runtime", 'D', "0", 20, kSandbox, ""}});
  b.s.host_scanned_at = kNow;
  b.s.journal.hung_tasks = reports_of("6.7_nfs_tgid.txt", kNow - std::chrono::seconds(5));
  Report r = b.report();
  ASSERT_EQ(r.host.processes.blocked.size(), 1u);
  const auto& k = r.host.processes.blocked[0].hung_task;
  ASSERT_TRUE(k);
  EXPECT_EQ(k->pid, 5301);
  EXPECT_EQ(k->classes, std::vector<std::string>{"reclaim"});
}

TEST(HungTaskMatch, AReportOnAnotherPidIsTiedToNoProcess) {
  Builder b;
  b.s.host = host_with({{4242, 4242, "containerd-shim", "shim", 'D', "ovl_sync_fs", 20, kSandbox, ""}});
  b.s.host_scanned_at = kNow;
  b.s.journal.hung_tasks = reports_of("5.10_runc_cgroup.txt", kNow - std::chrono::seconds(5));
  Report r = b.report();
  EXPECT_FALSE(r.host.processes.blocked[0].hung_task);
  ASSERT_EQ(r.host.hung_tasks.size(), 1u);
  EXPECT_EQ(r.host.hung_tasks[0].classes, std::vector<std::string>{"cgroup"});
}

TEST(HungTaskMatch, EachFixturesClassInWords) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"4.15_ext4_jbd2.txt", "local storage (block I/O, a journal commit or writeback) (jbd2_log_wait_commit"},
      {"4.14_arm_fuse_writeback.txt", "local storage (block I/O, a journal commit or writeback) and a network filesystem"},
      {"5.10_runc_cgroup.txt", "a cgroup lock (cgroup migration, fork or css) (percpu_rwsem_wait"},
      {"6.1_shim_overlay_umount.txt", "and overlayfs (a container's layered root filesystem)"},
      {"6.7_nfs_tgid.txt", "a network filesystem (NFS/RPC, CIFS, FUSE or the like) (rpc_wait_bit_killable"},
  };
  for (const auto& [name, words] : cases) {
    auto reports = reports_of(name, kNow);
    ASSERT_FALSE(reports.empty()) << name;
    const std::string said = hung_task_words(kernel_hung_task(reports.front()));
    EXPECT_NE(said.find("shows it waiting on " + (words.rfind("and ", 0) == 0 ? std::string() : words)),
              std::string::npos)
        << name << ": " << said;
    EXPECT_NE(said.find(words), std::string::npos) << name << ": " << said;
  }
  KernelHungTask frozen;
  frozen.pid = 7;
  frozen.frames = {"__refrigerator", "do_freezer_trap"};
  frozen.classes = {"freezer"};
  EXPECT_NE(hung_task_words(frozen).find("the freezer (the task is frozen)"), std::string::npos);
}

TEST(HungTaskMatch, RoundTripsThroughTheJson) {
  Builder b = shim_thread_in_d(30);
  b.s.journal.hung_tasks = reports_of("6.7_nfs_tgid.txt", kNow - std::chrono::minutes(10));
  b.s.journal.hung_tasks_suppressed_since = kNow - std::chrono::minutes(1);
  Report r = b.report();
  auto j = report_to_json(r);
  const auto& k = j["host"]["processes"]["blocked"][0]["hung_task"];
  EXPECT_EQ(k["pid"], 5120);
  EXPECT_EQ(k["tgid"], 5118);
  EXPECT_EQ(k["classes"], nlohmann::json::array({"network_fs"}));
  EXPECT_TRUE(k["predates_stall_seconds"].is_number());
  EXPECT_EQ(j["host"]["hung_tasks"].size(), 2u);
  EXPECT_TRUE(j["host"]["hung_tasks"][1]["predates_stall_seconds"].is_null());
  EXPECT_TRUE(j["host"]["hung_tasks_suppressed_since"].is_string());
  Report back = report_from_json(j);
  ASSERT_TRUE(back.host.processes.blocked[0].hung_task);
  EXPECT_EQ(back.host.processes.blocked[0].hung_task->frames, r.host.processes.blocked[0].hung_task->frames);
  EXPECT_EQ(back.host.hung_tasks.size(), 2u);
  EXPECT_TRUE(back.host.hung_tasks_suppressed_since);
  EXPECT_NE(render_text(back).find("the kernel stopped reporting hung tasks"), std::string::npos);
}

}  // namespace
}  // namespace plegscope::testing
