// Host.processes.shims: every shim and conmon with the pod the
// runtime lists for it, the runc children and the daemon left out, the
// unmapped first, bounded with the true count beside.
#include <gtest/gtest.h>

#include "diagnoser/report_sections/shims.h"
#include "snapshot_builder.h"

namespace plegscope::testing {
namespace {

host::HelperProcess helper(int64_t pid, const std::string& comm, const std::string& role, const std::string& sandbox,
                           const std::string& container = "") {
  host::HelperProcess h;
  h.pid = pid;
  h.ppid = 1;
  h.comm = comm;
  h.role = role;
  h.state = 'S';
  h.age_seconds = 100.0 + static_cast<double>(pid);
  h.sandbox_id = sandbox;
  h.container_id = container;
  return h;
}

// Three pods with a shim each, the shim of a pod gone from the lists, a runc
// under the first shim, the daemon, and a CRI-O conmon mapped through its container.
Builder node_with_shims() {
  Builder b;
  b.s.host = host::HostEvidence{};
  auto& helpers = b.s.host->processes.helpers;
  helpers.push_back(helper(10, "containerd", "daemon", ""));
  helpers.push_back(helper(300, "containerd-shim", "shim", "sb-c"));
  helpers.push_back(helper(200, "containerd-shim", "shim", "sb-a"));
  helpers.push_back(helper(250, "containerd-shim", "shim", "sb-b"));
  helpers.push_back(helper(400, "containerd-shim", "shim", "sb-gone"));
  helpers.push_back(helper(201, "runc", "oci_runtime", "sb-a"));
  helpers.push_back(helper(500, "conmon", "conmon", "", "ctr-x"));
  b.s.shim_pods[300] = {"pay", "ledger-0", "uid-c", "sb-c", ""};
  b.s.shim_pods[200] = {"pay", "ledger-2", "uid-a", "sb-a", ""};
  b.s.shim_pods[250] = {"web", "front-1", "uid-b", "sb-b", ""};
  b.s.shim_pods[500] = {"crio", "infra-9", "uid-x", "sb-x", ""};
  return b;
}

TEST(ShimList, EveryShimAndConmonWithItsPodNotRuncNorTheDaemon) {
  Report r = node_with_shims().report();
  const auto& shims = r.host.processes.shims;
  EXPECT_EQ(r.host.processes.shims_total, 5);
  ASSERT_EQ(shims.size(), 5u);
  for (const auto& s : shims) {
    EXPECT_NE(s.pid, 10) << "the daemon is no shim";
    EXPECT_NE(s.pid, 201) << "runc is a shim's child, not a shim";
  }
  // Unmapped first, then by pod, then pid.
  EXPECT_EQ(shims[0].pid, 400);
  EXPECT_EQ(shims[0].pod, "");
  EXPECT_EQ(shims[0].sandbox_id, "sb-gone");
  EXPECT_EQ(shims[1].pod, "crio/infra-9");
  EXPECT_EQ(shims[1].sandbox_id, "sb-x");  // a conmon's sandbox, through its container
  EXPECT_EQ(shims[1].container_id, "ctr-x");
  EXPECT_EQ(shims[2].pod, "pay/ledger-0");
  EXPECT_EQ(shims[2].pid, 300);
  EXPECT_EQ(shims[2].sandbox_id, "sb-c");
  EXPECT_EQ(shims[3].pod, "pay/ledger-2");
  EXPECT_EQ(shims[4].pod, "web/front-1");
  EXPECT_EQ(shims[4].state, "S");
  ASSERT_TRUE(shims[4].seconds);
  EXPECT_DOUBLE_EQ(*shims[4].seconds, 350.0);
}

TEST(ShimList, BoundedWithTheTrueCountAndTheUnmappedKept) {
  Builder b;
  b.s.host = host::HostEvidence{};
  for (int64_t pid = 1000; pid < 1600; ++pid) {
    b.s.host->processes.helpers.push_back(helper(pid, "containerd-shim", "shim", "sb-" + std::to_string(pid)));
    if (pid != 1599) b.s.shim_pods[pid] = {"ns", "p-" + std::to_string(pid), "u", "sb-" + std::to_string(pid), ""};
  }
  HostReport::Processes p;
  fill_shims(b.s, p, 512);
  EXPECT_EQ(p.shims_total, 600);
  ASSERT_EQ(p.shims.size(), 512u);
  EXPECT_EQ(p.shims[0].pid, 1599);  // the one unmapped shim survives the cut
  EXPECT_EQ(p.shims[0].pod, "");
  Report r = b.report();
  EXPECT_EQ(r.host.processes.shims.size(), kMaxShimsListed);
  EXPECT_EQ(r.host.processes.shims_total, 600);
}

TEST(ShimList, NoScanNoShims) {
  Builder b;
  Report r = b.report();
  EXPECT_TRUE(r.host.processes.shims.empty());
  EXPECT_EQ(r.host.processes.shims_total, 0);
}

}  // namespace
}  // namespace plegscope::testing
