// The transition log line carries, without the node, what the on-call
// engineer needs: node, status and the one before, the top causes with their
// evidence and culprit, the version and the time.
#include "report/transition_record.h"

#include <gtest/gtest.h>

#include "report/json.h"
#include "sample_report.h"

namespace plegscope {
namespace {

Cause shim_stuck_in_d() {
  Cause c;
  c.id = CauseId::kShimHung;
  c.severity = Severity::kCritical;
  c.confidence = 0.9;
  c.summary = "A runtime shim is stuck in the kernel.";
  c.evidence = {{"blocked_seconds{containerd-shim}", 94, 10}};
  c.processes.push_back({2816, "containerd-shim", "ovl_sync_fs", 94, 1, "sb-web", host::WchanHidden::kNo, std::nullopt});
  c.pods.push_back({"shop", "db-0", "uid-db", "sb-db", ""});
  c.pods.push_back({"shop", "web-0", "uid-web", "sb-web", ""});
  return c;
}

TEST(TransitionRecord, NamesTheChangeTheCausesAndTheirCulprits) {
  Report r = testing::sample();
  r.causes.push_back(shim_stuck_in_d());
  r.causes[0].op = "list_containers";
  r.causes[0].seconds = 12.5;
  auto j = transition_record(r, Status::kHealthy, 3, "9.9.9");
  EXPECT_EQ(j["event"], "plegscope_verdict");
  EXPECT_EQ(j["node"], "worker-3");
  EXPECT_EQ(j["status"], "at_risk");
  EXPECT_EQ(j["previous_status"], "healthy");
  EXPECT_EQ(j["suppressed_transitions"], 3);
  EXPECT_EQ(j["version"], "9.9.9");
  EXPECT_EQ(j["time"], report_to_json(r)["generated_at"]) << "the report's own time";
  EXPECT_EQ(j["summary"], report_to_json(r)["summary"]);
  EXPECT_FALSE(j["summary"].get<std::string>().empty());
  EXPECT_DOUBLE_EQ(j["seconds_to_unhealthy"].get<double>(), 166.5);
  ASSERT_EQ(j["causes"].size(), 2u);
  const auto& hung = j["causes"][0];
  EXPECT_EQ(hung["id"], "runtime_hung");
  EXPECT_EQ(hung["evidence"][0]["signal"], "oldest_in_flight_seconds{list_containers}");
  EXPECT_EQ(hung["culprit"]["operation"], "list_containers");
  EXPECT_DOUBLE_EQ(hung["culprit"]["seconds"].get<double>(), 12.5);
  const auto& shim = j["causes"][1]["culprit"];
  EXPECT_EQ(shim["pid"], 2816);
  EXPECT_EQ(shim["wchan"], "ovl_sync_fs");
  EXPECT_EQ(shim["pod"], "shop/web-0") << "the pod whose sandbox the stuck shim serves, not the first pod listed";
  EXPECT_DOUBLE_EQ(shim["seconds"].get<double>(), 94);
  EXPECT_EQ(j.dump().find('\n'), std::string::npos) << "one line";
}

TEST(TransitionRecord, KeepsTheTopCausesAndSaysHowManyThereAre) {
  Report r = testing::sample();
  for (int i = 0; i < 5; ++i) r.causes.push_back(r.causes[0]);
  auto j = transition_record(r, std::nullopt, 0, "0.1.0");
  EXPECT_EQ(j["causes"].size(), kTransitionRecordCauses);
  EXPECT_EQ(j["causes_total"], 6);
  EXPECT_TRUE(j["previous_status"].is_null()) << "the agent's first verdict";
}

TEST(TransitionRecord, AHealthyNodeHasNoCauses) {
  Report r = testing::sample();
  r.status = Status::kHealthy;
  r.causes.clear();
  r.seconds_to_unhealthy.reset();
  auto j = transition_record(r, Status::kUnhealthy, 0, "0.1.0");
  EXPECT_EQ(j["status"], "healthy");
  EXPECT_TRUE(j["causes"].empty());
  EXPECT_TRUE(j["seconds_to_unhealthy"].is_null());
}

}  // namespace
}  // namespace plegscope
