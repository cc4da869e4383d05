// /metrics' diagnosis is computed once per relist (or per max_age), not per scrape.
#include "cached_diagnosis.h"
#include "metrics_endpoint.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fake_clock.h"

namespace plegscope {
namespace {

Config config_without_runtime() {
  Config c;
  c.runtime_endpoint = "unix:///nonexistent/plegscope-test.sock";
  c.proc_path = "/nonexistent";
  c.node_name = "test";
  return c;
}

TEST(CachedDiagnosis, ScrapesShareOneDiagnosisUntilARelistOrMaxAge) {
  testing::FakeClock clock;
  Monitor monitor(config_without_runtime(), clock);  // not started: no relist runs by itself
  CachedDiagnosis cached(monitor, std::chrono::seconds(1));

  auto families = cached.Collect();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].name, "pleg_diagnosis_cause");
  EXPECT_FALSE(families[0].metric.empty()) << "every cause id is exported";
  EXPECT_EQ(cached.computed(), 1u);

  std::vector<std::thread> scrapers;
  for (int i = 0; i < 8; ++i)
    scrapers.emplace_back([&] {
      for (int j = 0; j < 20; ++j) cached.Collect();
    });
  for (auto& t : scrapers) t.join();
  EXPECT_EQ(cached.computed(), 1u) << "160 scrapes, no relist, no time passed";

  clock.step(std::chrono::milliseconds(1500));
  cached.Collect();
  EXPECT_EQ(cached.computed(), 2u) << "older than max_age: diagnosed again (a hang shows)";

  monitor.pleg().relist();  // fails at once (no socket) but is a relist
  cached.Collect();
  cached.Collect();
  EXPECT_EQ(cached.computed(), 3u) << "a new relist: diagnosed again, once";
}

TEST(MetricsEndpoint, EveryAnswerIsCollectedAfterItsRequestArrived) {
  testing::FakeClock clock;
  Monitor monitor(config_without_runtime(), clock);
  MetricsEndpoint endpoint(monitor);
  HttpResponse first = endpoint.serve();
  EXPECT_EQ(first.status, 200);
  EXPECT_NE(first.content().find("pleg_relist_period_seconds 1"), std::string::npos) << first.content();
  EXPECT_NE(first.content().find("pleg_diagnosis_cause{cause=\"runtime_unavailable\"}"), std::string::npos);
  EXPECT_NE(first.content().find("pleg_relist_duration_seconds_count 0"), std::string::npos);
  monitor.pleg().relist();
  HttpResponse second = endpoint.serve();
  EXPECT_NE(second.content().find("pleg_relist_duration_seconds_count 1"), std::string::npos)
      << "a scrape after a relist sees it";
  EXPECT_EQ(endpoint.rendered(), 2u);
}

TEST(MetricsEndpoint, ConcurrentScrapesAllGetAText) {
  testing::FakeClock clock;
  Monitor monitor(config_without_runtime(), clock);
  MetricsEndpoint endpoint(monitor);
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
}

}  // namespace
}  // namespace plegscope
