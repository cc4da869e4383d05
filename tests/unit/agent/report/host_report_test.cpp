// The host section and the slowest per-pod calls in JSON (DESIGN
// §6's names, both ways), text and HTML, and the stuck pod named at the top.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

#include "report/html.h"
#include "report/json.h"
#include "report/text.h"
#include "sample_report.h"

namespace plegscope::testing {
namespace {

using nlohmann::json;

Report with_stuck_pod() {
  Report r = sample();  // runtime_hung first
  r.runtime.slowest_pods.push_back({"shop/web-0", "uid-web-0", "4c5d6e7f8a9b0c1d", "", "podsandbox_status", 14, true});
  r.runtime.slowest_pods.push_back({"shop/api-1", "uid-api-1", "aa11bb22", "app", "container_status", 0.7, false});
  HostReport& h = r.host;
  h.reachable = true;
  h.processes.helpers = 12;
  h.processes.blocked.push_back({4242, "containerd-shim", "D", "nfs_wait_bit_killable", 31, "4c5d6e7f8a9b0c1d",
                                 "shop/web-0", "", 4242, 1, 1, std::nullopt});
  h.processes.zombies = 7;
  h.processes.zombie_parents.push_back({4242, "containerd-shim", 7, "shop/web-0", "", "", "helper"});
  h.processes.shims.push_back({777, "containerd-shim", "S", 7200, "deadbeefcafe0001", "", ""});  // leaked
  h.processes.shims.push_back({4242, "containerd-shim", "D", 3600, "4c5d6e7f8a9b0c1d", "", "shop/web-0"});
  h.processes.shims.push_back({4300, "conmon", "S", std::nullopt, "aa11bb22", "cc33dd44", "shop/api-1"});
  h.processes.shims_total = 3;
  h.pid_limits.push_back({"runtime", 400, 4000});
  h.pid_limits.push_back({"kubepods", 900, std::nullopt});
  h.runtime_disk = {"vda1", "/", 3.5, 0.2, std::nullopt};
  return r;
}

TEST(HostReport, DesignFieldNames) {
  json j = report_to_json(with_stuck_pod());
  EXPECT_EQ(keys(j["host"]), (std::set<std::string>{"reachable", "error", "processes", "pid_limits", "runtime_disk",
                                                    "hung_tasks", "hung_tasks_suppressed_since", "cgroup_v2"}));
  EXPECT_TRUE(j["host"]["cgroup_v2"].is_null()) << "a v1 host: no cgroup v2 section";
  EXPECT_EQ(keys(j["host"]["processes"]),
            (std::set<std::string>{"helpers", "blocked", "kernel_stacks", "zombies", "zombie_parents", "shims",
                                   "shims_total", "error"}));
  EXPECT_EQ(keys(j["host"]["processes"]["kernel_stacks"]),
            (std::set<std::string>{"enabled", "available", "error", "tasks_asked", "tasks_read", "read_seconds"}));
  EXPECT_EQ(keys(j["host"]["processes"]["shims"][0]),
            (std::set<std::string>{"pid", "comm", "state", "seconds", "sandbox_id", "container_id", "pod"}));
  EXPECT_TRUE(j["host"]["processes"]["shims"][2]["seconds"].is_null());  // no uptime: no age, not 0
  EXPECT_EQ(keys(j["host"]["processes"]["blocked"][0]),
            (std::set<std::string>{"pid", "comm", "state", "wchan", "wchan_hidden", "seconds", "tid", "tasks_in_d",
                                   "threads", "sandbox_id", "pod", "hung_task"}));
  EXPECT_TRUE(j["host"]["processes"]["blocked"][0]["hung_task"].is_null()) << "no kernel report on it";
  EXPECT_EQ(keys(j["host"]["processes"]["zombie_parents"][0]),
            (std::set<std::string>{"pid", "comm", "count", "pod", "pod_uid", "sandbox_id", "found_by"}));
  EXPECT_EQ(keys(j["host"]["pid_limits"][0]), (std::set<std::string>{"scope", "current", "max"}));
  EXPECT_TRUE(j["host"]["pid_limits"][1]["max"].is_null());  // no limit
  EXPECT_EQ(keys(j["host"]["runtime_disk"]),
            (std::set<std::string>{"device", "mount", "latency_ms", "utilization", "error"}));
  EXPECT_EQ(keys(j["runtime"]["slowest_pods"][0]),
            (std::set<std::string>{"pod", "uid", "sandbox_id", "container", "op", "seconds", "in_flight"}));
}

TEST(HostReport, RoundTrips) {
  json first = report_to_json(with_stuck_pod());
  Report back = report_from_json(first);
  EXPECT_EQ(report_to_json(back), first);
  EXPECT_EQ(back.host.processes.blocked.at(0).wchan, "nfs_wait_bit_killable");
  EXPECT_EQ(back.runtime.slowest_pods.at(0).pod, "shop/web-0");
  ASSERT_EQ(back.host.processes.shims.size(), 3u);
  EXPECT_EQ(back.host.processes.shims_total, 3);
  EXPECT_EQ(back.host.processes.shims[1].pod, "shop/web-0");
  EXPECT_EQ(back.host.processes.shims[2].container_id, "cc33dd44");
  EXPECT_FALSE(back.host.processes.shims[2].seconds);
}

TEST(HostReport, AKernelStackTravelsOnlyWhenReadAndShowsInText) {
  Report r = with_stuck_pod();
  json without = report_to_json(r);
  EXPECT_FALSE(without["host"]["processes"]["blocked"][0].contains("kernel_stack"));
  r.host.processes.kernel_stacks = {true, true, std::nullopt, 1, 1, 0.0004};
  r.host.processes.blocked[0].kernel_stack =
      HostReport::Blocked::KernelStack{4243, {"rpc_wait_bit_killable", "__wait_on_bit", "nfs_wait_on_request"},
                                       "rpc_wait_bit_killable", "network_fs"};
  json j = report_to_json(r);
  const json& k = j["host"]["processes"]["blocked"][0]["kernel_stack"];
  EXPECT_EQ(keys(k), (std::set<std::string>{"tid", "frames", "top", "class"}));
  EXPECT_EQ(k["class"], "network_fs");
  Report back = report_from_json(j);
  EXPECT_EQ(report_to_json(back), j);
  ASSERT_TRUE(back.host.processes.blocked[0].kernel_stack);
  EXPECT_EQ(back.host.processes.blocked[0].kernel_stack->tid, 4243);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("kernel stack (tid 4243) at rpc_wait_bit_killable [network_fs]: rpc_wait_bit_killable < "
                      "__wait_on_bit < nfs_wait_on_request"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("kernel stacks: 1 of 1 tasks in D read"), std::string::npos) << text;
  r.host.processes.kernel_stacks = {true, false, std::string("the kernel has no BTF"), 0, 0, 0};
  EXPECT_NE(render_text(r).find("kernel stacks: unavailable, wchan and the hung-task reports stand in (the kernel "
                                "has no BTF)"),
            std::string::npos);
}

TEST(HostReport, AnOlderReportWithoutShimsStillReads) {
  json j = report_to_json(with_stuck_pod());
  j["host"]["processes"].erase("shims");
  j["host"]["processes"].erase("shims_total");
  Report back = report_from_json(j);
  EXPECT_TRUE(back.host.processes.shims.empty());
  EXPECT_EQ(back.host.processes.shims_total, 0);
}

TEST(HostReport, TextCountsTheMappedShimsAndListsTheUnmapped) {
  Report r = with_stuck_pod();
  std::string t = render_text(r);
  EXPECT_NE(t.find("shims: 3 shims, 2 mapped to their pods, 1 unmapped"), std::string::npos) << t;
  EXPECT_NE(t.find("unmapped: containerd-shim pid 777 S, up 2h0m"), std::string::npos) << t;
  EXPECT_NE(t.find("sandbox deadbeefcafe is not one the runtime lists"), std::string::npos) << t;
  EXPECT_EQ(t.find("unmapped: containerd-shim pid 4242"), std::string::npos) << t;  // mapped: not listed alone
  r.host.processes.shims.erase(r.host.processes.shims.begin());
  r.host.processes.shims_total = 2;
  t = render_text(r);
  EXPECT_NE(t.find("shims: 2 shims, each mapped to its pod"), std::string::npos) << t;
  EXPECT_EQ(t.find("unmapped"), std::string::npos) << t;
}

TEST(HostReport, ACutShimListSaysHowManyItShows) {
  Report r = with_stuck_pod();
  r.host.processes.shims_total = 600;  // 3 listed of 600: the 597 cut are mapped (unmapped come first)
  std::string t = render_text(r);
  EXPECT_NE(t.find("600 shims, 599 mapped to their pods, 1 unmapped (3 listed)"), std::string::npos) << t;
  r.host.processes.shims.resize(1);  // a list unmapped to its end: the rest is not known
  t = render_text(r);
  EXPECT_NE(t.find("600 shims, at least 1 unmapped"), std::string::npos) << t;
}

TEST(HostReport, HtmlShowsTheShimsAndTheUnmappedOne) {
  std::string h = render_html(with_stuck_pod());
  EXPECT_NE(h.find("3 shims, 2 mapped to their pods, 1 unmapped"), std::string::npos);
  auto row = h.find("unmapped shim");
  ASSERT_NE(row, std::string::npos);
  EXPECT_NE(h.substr(row, 200).find("pid 777"), std::string::npos) << h.substr(row, 200);
}

TEST(HostReport, AnOffScanIsPresentAndSaysWhy) {
  Report r = sample();
  r.host.error = "host scan off";
  json j = report_to_json(r);
  ASSERT_TRUE(j.contains("host"));
  EXPECT_EQ(j["host"]["reachable"], false);
  EXPECT_EQ(j["host"]["error"], "host scan off");
  EXPECT_NE(render_text(r).find("Host: not read (host scan off)"), std::string::npos);
}

TEST(HostReport, TextShowsTheBlockedShimZombiesLimitsAndDisk) {
  std::string t = render_text(with_stuck_pod());
  EXPECT_NE(t.find("containerd-shim pid 4242 D"), std::string::npos) << t;
  EXPECT_NE(t.find("pod shop/web-0"), std::string::npos) << t;
  EXPECT_NE(t.find("zombies: 7 under containerd-shim"), std::string::npos) << t;
  EXPECT_NE(t.find("runtime 400/4000 (10%)"), std::string::npos) << t;
  EXPECT_NE(t.find("vda1 at /, 3.5 ms per IO, 20% busy"), std::string::npos) << t;
  EXPECT_NE(t.find("PodSandboxStatus  shop/web-0"), std::string::npos) << t;
}

TEST(HostReport, TextListsABlockedProcessOnceWithItsThreadsAndWhyItsWchanIsHidden) {
  Report r = with_stuck_pod();
  HostReport::Blocked& b = r.host.processes.blocked[0];
  b.wchan = "0";
  b.wchan_hidden = "missing_capabilities";
  b.tasks_in_d = 12;
  b.threads = 12;
  r.host.processes.zombie_parents[0] = {2816, "zombies", 200, "", "uid-web-0", "", "cgroup"};
  std::string t = render_text(r);
  EXPECT_NE(t.find("containerd-shim pid 4242 (12 of 12 threads in D) D 31s wchan hidden (reads 0: without "
                   "CAP_SYS_PTRACE plegscope lacks capabilities this process holds)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("zombies: 200 under zombies pid 2816  pod uid uid-web-0"), std::string::npos) << t;
}

TEST(HostReport, HtmlNamesTheStuckPodInTheBanner) {
  std::string h = render_html(with_stuck_pod());
  auto banner_end = h.find("</section>");
  auto stuck = h.find("id=\"stuck-pod\"");
  ASSERT_NE(stuck, std::string::npos);
  EXPECT_LT(stuck, banner_end);
  auto line = h.substr(stuck, 300);
  EXPECT_NE(line.find("shop/web-0"), std::string::npos) << line;
  EXPECT_NE(line.find("pid 4242"), std::string::npos) << line;
  EXPECT_NE(h.find("id=\"host\""), std::string::npos);
  EXPECT_NE(h.find("id=\"slowest-pods\""), std::string::npos);
}

TEST(HostReport, NoHangCauseNoStuckPodLine) {
  Report r = with_stuck_pod();
  r.causes.clear();
  r.status = Status::kHealthy;
  EXPECT_EQ(render_html(r).find("id=\"stuck-pod\""), std::string::npos);
}

}  // namespace
}  // namespace plegscope::testing
