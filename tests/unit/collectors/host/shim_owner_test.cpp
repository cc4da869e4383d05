// Whose shim is it: on a host running two containerds (Docker's beside the
// kubelet's, two test clusters), a shim counts for the watched runtime only
// when its command line names the watched containerd's socket and the CRI
// namespace; an older shim that names neither counts, as it always has.
// Over the fixture tree tests/fixtures/host/two_containerds (see its README).
#include <gtest/gtest.h>

#include "host_fixture_options.h"

#include <set>
#include <string>

#include "host/host_scanner.h"
#include "host/process_stat.h"
#include "source_tree.h"

namespace plegscope::host {
namespace {

using namespace std::chrono_literals;

const std::string kTree = source_tree::fixtures() + "/host/two_containerds";
const std::string kTail = "1c2a9e8b7d4c3f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071";

std::string nul_joined(std::initializer_list<const char*> args) {
  std::string out;
  for (auto a : args) out.append(a).push_back('\0');
  return out;
}

HostEvidence scan_as(const std::string& socket) {
  HostScanOptions o = fixture_tree_options(kTree);
  if (!socket.empty()) o.runtime_socket = [socket] { return socket; };
  HostScanner scanner(o);
  return scanner.scan();
}

std::set<int64_t> helper_pids(const HostEvidence& e) {
  std::set<int64_t> out;
  for (const auto& h : e.processes.helpers) out.insert(h.pid);
  return out;
}

std::set<int64_t> blocked_pids(const HostEvidence& e) {
  std::set<int64_t> out;
  for (const auto& b : e.processes.blocked) out.insert(b.pid);
  return out;
}

TEST(ParseShimAddress, V2AndV1ShimsNameTheirContainerd) {
  EXPECT_EQ(*parse_shim_address(nul_joined({"/usr/bin/containerd-shim-runc-v2", "-namespace", "k8s.io", "-id", "abc",
                                            "-address", "/run/containerd/containerd.sock"})),
            "/run/containerd/containerd.sock");
  EXPECT_EQ(*parse_shim_address(nul_joined({"containerd-shim", "-namespace", "moby", "-workdir", "/x/moby/def",
                                            "-address=/run/docker/containerd/containerd.sock"})),
            "/run/docker/containerd/containerd.sock");
  EXPECT_EQ(*parse_shim_namespace(nul_joined({"containerd-shim-runc-v2", "-namespace", "moby", "-id", "x"})), "moby");
  EXPECT_FALSE(parse_shim_address(nul_joined({"containerd-shim", "-workdir", "/x/k8s.io/def"})));
  EXPECT_FALSE(parse_shim_address(nul_joined({"containerd-shim-runc-v2", "-address"})));  // no value
  EXPECT_FALSE(parse_shim_namespace(""));
}

TEST(ShimServesSocket, ComparedAsTheHostsPath) {
  EXPECT_TRUE(shim_serves_socket("/run/containerd/containerd.sock", "unix:///run/containerd/containerd.sock"));
  EXPECT_TRUE(shim_serves_socket("/run/containerd/containerd.sock", "unix:///var/run/containerd/containerd.sock"));
  EXPECT_TRUE(shim_serves_socket("/run/containerd/containerd.sock", "/run/containerd/containerd.sock"));
  EXPECT_FALSE(shim_serves_socket("/run/containerd-b/containerd.sock", "unix:///run/containerd/containerd.sock"));
  // Same basename, another directory: another containerd.
  EXPECT_FALSE(shim_serves_socket("/run/docker/containerd/containerd.sock", "/run/containerd/containerd.sock"));
}

TEST(ShimOwner, WithoutAWatchedSocketEveryShimCounts) {
  HostEvidence e = scan_as("");
  EXPECT_EQ(helper_pids(e), (std::set<int64_t>{900, 950, 4100, 4200, 4210, 4211, 4300, 4400}));
  EXPECT_EQ(blocked_pids(e), (std::set<int64_t>{4100, 4200, 4210, 4211, 4300, 4400}));
}

TEST(ShimOwner, ForeignAndMobyShimsAndTheRuncUnderThemAreLeftOut) {
  HostEvidence e = scan_as("unix:///run/containerd/containerd.sock");
  // 4100 names this socket and k8s.io: counted. 4200 (and its runc 4210,
  // runc init 4211) serves /run/containerd-b; 4300 names this socket but
  // Docker's moby namespace: not a CRI pod's. 4400, a v1 shim with no
  // -address, is kept as before. Both daemons stay (their own evidence).
  EXPECT_EQ(helper_pids(e), (std::set<int64_t>{900, 950, 4100, 4400}));
  EXPECT_EQ(blocked_pids(e), (std::set<int64_t>{4100, 4400}));
  // What is kept is kept whole, wherever it sat among the dropped ones.
  for (const auto& h : e.processes.helpers) {
    EXPECT_EQ(h.role, h.pid < 1000 ? "daemon" : "shim") << h.pid;
    if (h.pid == 4100) {
      EXPECT_EQ(h.sandbox_id, "0a" + kTail);
    }
    if (h.pid == 4400) {
      EXPECT_EQ(h.sandbox_id, "0d" + kTail);
    }
  }
  for (const auto& b : e.processes.blocked) {
    if (b.pid == 4100) {
      EXPECT_EQ(b.sandbox_id, "0a" + kTail);
    }
    if (b.pid == 4400) {
      EXPECT_EQ(b.sandbox_id, "0d" + kTail);
    }
  }
}

TEST(ShimOwner, TheOtherContainerdsAgentSeesItsOwn) {
  // /var/run spelling of the second containerd's socket.
  HostEvidence e = scan_as("unix:///var/run/containerd-b/containerd.sock");
  EXPECT_EQ(helper_pids(e), (std::set<int64_t>{900, 950, 4200, 4210, 4211, 4400}));
  EXPECT_EQ(blocked_pids(e), (std::set<int64_t>{4200, 4210, 4211, 4400}));
  for (const auto& h : e.processes.helpers) {
    EXPECT_EQ(h.role, h.pid < 1000 ? "daemon" : h.pid == 4210 || h.pid == 4211 ? "oci_runtime" : "shim") << h.pid;
    if (h.pid == 4200 || h.pid == 4210) {
      EXPECT_EQ(h.sandbox_id, "0b" + kTail) << h.pid;
    }
  }
}

}  // namespace
}  // namespace plegscope::host
