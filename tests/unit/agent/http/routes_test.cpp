// The endpoints of DESIGN §5 over a Node that never reached a runtime: they
// read what the Node observed and the DiagnosisService published.
#include "http/routes.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fake_clock.h"
#include "node/node_without_runtime.h"

namespace plegscope {
namespace {

class RoutesTest : public ::testing::Test {
 protected:
  RoutesTest() : node_(testing::node_without_runtime(), clock_), diagnosis_(node_, clock_, DiagnosisOptions{}) {
    add_routes(server_, node_, diagnosis_, clock_);
  }
  HttpResponse get(const std::string& path, std::map<std::string, std::string> query = {}) {
    return server_.dispatch({"GET", path, std::move(query)});
  }
  testing::FakeClock clock_;
  Node node_;
  DiagnosisService diagnosis_;
  HttpServer server_;
};

// DESIGN §5: the witness stays in the Service while the runtime is down.
TEST_F(RoutesTest, ReadyWhileServingEvenBeforeAnyRelistSucceeded) {
  node_.relist();  // fails: no runtime
  EXPECT_EQ(get("/readyz").status, 200);
  EXPECT_EQ(get("/livez").status, 200);
}

TEST_F(RoutesTest, HealthzSaysTheKubeletsSentence) {
  HttpResponse health = get("/healthz");
  EXPECT_EQ(health.status, 500);
  EXPECT_EQ(health.content(), "PLEG is not healthy: pleg has yet to be successful\n");
}

// Kubernetes' healthz way: one line per check; the runtime's Status checks
// appear once the probe has called (this node never started it).
TEST_F(RoutesTest, VerboseHealthzListsTheChecks) {
  HttpResponse health = get("/healthz", {{"verbose", ""}});
  EXPECT_EQ(health.status, 500);
  EXPECT_EQ(health.content(), "[-]pleg failed: PLEG is not healthy: pleg has yet to be successful\nhealthz check failed\n");
}

TEST_F(RoutesTest, DiagnoseRendersThePublishedReportInEachFormat) {
  auto json = nlohmann::json::parse(get("/diagnose").content());
  EXPECT_EQ(json["node"], "test");
  EXPECT_EQ(json["healthy"], false);
  EXPECT_EQ(get("/diagnose", {{"format", "text"}}).status, 200);
  EXPECT_EQ(get("/diagnose", {{"format", "html"}}).content_type, "text/html; charset=utf-8");
  HttpResponse bad = get("/diagnose", {{"format", "yaml"}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.content().find('\n'), bad.content().size() - 1) << "one line";
}

TEST_F(RoutesTest, ReadersShareOnePublishedDiagnosis) {
  for (int i = 0; i < 5; ++i) {
    get("/healthz");
    get("/diagnose");
    get("/metrics");
  }
  EXPECT_EQ(diagnosis_.diagnoses(), 1u) << "no relist and no time passed";
  node_.relist();
  get("/healthz");
  get("/metrics");
  EXPECT_EQ(diagnosis_.diagnoses(), 2u);
}

TEST_F(RoutesTest, DebugEndpointsAndTheirBadLimits) {
  EXPECT_EQ(nlohmann::json::parse(get("/debug/pods").content()), nlohmann::json::parse(R"({"pods": []})"));
  EXPECT_EQ(nlohmann::json::parse(get("/debug/events", {{"limit", "3"}}).content()),
            nlohmann::json::parse(R"({"events": []})"));
  EXPECT_EQ(get("/debug/events", {{"limit", "-1"}}).status, 400);
  EXPECT_EQ(get("/debug/events", {{"limit", "x"}}).status, 400);
  // A node without a runtime holds no pod: every per-pod structure is empty.
  auto sizes = nlohmann::json::parse(get("/debug/sizes").content())["sizes"];
  for (const char* name : {"pod_records", "pod_status_cache", "pod_directory_pods", "pod_directory_ids"})
    EXPECT_EQ(sizes.value(name, -1), 0) << name;
}

// CRI-O's goroutine dump only where the agent reads CRI-O: never asked here.
TEST_F(RoutesTest, NoRuntimeGoroutinesWithoutCrio) {
  EXPECT_EQ(get("/debug/runtime-goroutines").status, 404);
}

}  // namespace
}  // namespace plegscope
