// /metrics: every answer collected after its request arrived, shared by
// concurrent scrapes; pleg_diagnosis_cause from the published diagnosis.
#include "http/metrics_endpoint.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fake_clock.h"
#include "node/node_without_runtime.h"

namespace plegscope {
namespace {

TEST(MetricsEndpoint, EveryAnswerIsCollectedAfterItsRequestArrived) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  DiagnosisService diagnosis(node, clock, DiagnosisOptions{});
  MetricsEndpoint endpoint(node, diagnosis, clock);
  HttpResponse first = endpoint.serve();
  EXPECT_EQ(first.status, 200);
  EXPECT_NE(first.content().find("pleg_relist_period_seconds 1"), std::string::npos) << first.content();
  EXPECT_NE(first.content().find("pleg_diagnosis_cause{cause=\"runtime_unavailable\"}"), std::string::npos);
  EXPECT_NE(first.content().find("pleg_relist_duration_seconds_count 0"), std::string::npos);
  node.relist();
  HttpResponse second = endpoint.serve();
  EXPECT_NE(second.content().find("pleg_relist_duration_seconds_count 1"), std::string::npos)
      << "a scrape after a relist sees it";
  EXPECT_EQ(endpoint.rendered(), 2u);
}

TEST(MetricsEndpoint, ConcurrentScrapesAllGetAText) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  DiagnosisService diagnosis(node, clock, DiagnosisOptions{});
  MetricsEndpoint endpoint(node, diagnosis, clock);
  std::atomic<int> good{0};
  std::vector<std::thread> scrapers;
  for (int i = 0; i < 8; ++i)
    scrapers.emplace_back([&] {
      for (int j = 0; j < 20; ++j)
        good += endpoint.serve().content().find("pleg_relist_period_seconds") != std::string::npos;
    });
  for (auto& t : scrapers) t.join();
  EXPECT_EQ(good, 160);
  EXPECT_LE(endpoint.rendered(), 160u);
  EXPECT_GE(endpoint.rendered(), 1u);
  EXPECT_EQ(diagnosis.diagnoses(), 0u) << "a scrape reads the published diagnosis, never makes one";
}

TEST(MetricsEndpoint, ScrapesOneAfterAnotherAtAStormsRateShareATextPerTenthOfASecond) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  DiagnosisService diagnosis(node, clock, DiagnosisOptions{});
  MetricsEndpoint endpoint(node, diagnosis, clock);
  for (int i = 0; i < 200; ++i) ASSERT_EQ(endpoint.serve().status, 200);
  EXPECT_EQ(endpoint.rendered(), MetricsEndpoint::kStormRenders) << "then the last text, younger than 100 ms";
  clock.step(MetricsEndpoint::kStormMaxAge);
  for (int i = 0; i < 50; ++i) endpoint.serve();
  EXPECT_EQ(endpoint.rendered(), MetricsEndpoint::kStormRenders + 1) << "one new text once the last is too old";
  clock.step(MetricsEndpoint::kStormWindow * 2);
  endpoint.serve();
  endpoint.serve();
  EXPECT_EQ(endpoint.rendered(), MetricsEndpoint::kStormRenders + 3) << "the storm is over: a text per request";
}

}  // namespace
}  // namespace plegscope
