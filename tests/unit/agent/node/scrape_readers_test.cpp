// The metrics-page readers in the Node: off by default (the snapshot's sections
// empty, no up gauge), an unreachable kubelet or runtime-metrics page
// reported as data without blocking snapshot(), and the recent p99 of a
// histogram that only grows, and when in the window it grew.
#include "kubelet/kubelet_reader.h"
#include "runtime_metrics/runtime_metrics_reader.h"

#include <gtest/gtest.h>

#include <limits>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include "fake_clock.h"
#include "node/node.h"
#include "node/node_without_runtime.h"

namespace plegscope {
namespace {

bool has_family(const std::vector<prometheus::MetricFamily>& families, const std::string& name) {
  for (const auto& f : families)
    if (f.name == name) return true;
  return false;
}

TEST(ScrapeReaders, OffByDefault) {
  testing::FakeClock clock;
  Node node(testing::node_without_runtime(), clock);
  Snapshot s = node.snapshot();
  EXPECT_EQ(s.kubelet.endpoint, "");
  EXPECT_FALSE(s.kubelet.reachable);
  EXPECT_EQ(s.runtime_metrics.endpoint, "");
  EXPECT_TRUE(s.runtime_metrics.in_flight.empty());
  auto families = node.collect_metrics();
  EXPECT_FALSE(has_family(families, "pleg_kubelet_up")) << "a reader left off exports no up gauge";
  EXPECT_FALSE(has_family(families, "pleg_runtime_metrics_up"));
}

// A loopback port nothing listens on.
int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(ScrapeReaders, UnreachableSourcesAreEvidenceNotFailures) {
  testing::FakeClock clock;
  NodeOptions o = testing::node_without_runtime();
  const std::string base = "http://127.0.0.1:" + std::to_string(closed_port());
  o.kubelet.endpoint = base;
  o.kubelet.token_file = "";
  o.runtime_metrics.endpoint = base + "/v1/metrics";
  KubeletReader kubelet(o.kubelet, api_server_config(o.api_server), o.node_name, clock);
  RuntimeMetricsReader runtime(o.runtime_metrics, clock);
  kubelet.scrape_now();
  runtime.scrape_now();
  KubeletEvidence k = kubelet.evidence();
  EXPECT_EQ(k.endpoint, base);
  EXPECT_FALSE(k.reachable);
  EXPECT_EQ(k.outcome.error, ScrapeError::unreachable);
  EXPECT_EQ(k.tls_mode, "ca_file") << "the ServiceAccount ca.crt by default";
  RuntimeMetricsEvidence m = runtime.evidence();
  EXPECT_FALSE(m.reachable);
  EXPECT_EQ(m.outcome.error, ScrapeError::unreachable);

  Node node(o, clock);
  auto families = node.collect_metrics();
  EXPECT_TRUE(has_family(families, "pleg_kubelet_up"));
  EXPECT_TRUE(has_family(families, "pleg_runtime_metrics_up"));
}

TEST(ScrapeReaders, KubeletVersionFlagSetsTheModelWithoutAScrape) {
  testing::FakeClock clock;
  NodeOptions o = testing::node_without_runtime();
  o.kubelet.endpoint = "http://127.0.0.1:1";
  o.kubelet.version = "v1.36.0";
  KubeletReader kubelet(o.kubelet, api_server_config(o.api_server), o.node_name, clock);
  KubeletEvidence k = kubelet.evidence();
  ASSERT_TRUE(k.view.version);
  EXPECT_EQ(k.view.version->minor, 36);
  EXPECT_TRUE(k.view.version_overridden);
}

Histogram histogram(double le1, double le10, double inf) {
  Histogram h;
  h.count = inf;
  h.buckets = {{1, le1}, {10, le10}, {std::numeric_limits<double>::infinity(), inf}};
  return h;
}

TEST(ScrapeReaders, RecentP99IsOverWhatChangedInTheWindow) {
  // 1000 fast operations long ago, then 10 slow ones (1 s .. 10 s) in the window.
  std::map<std::string, Histogram> oldest = {{"set_up_pod", histogram(1000, 1000, 1000)}};
  std::map<std::string, Histogram> newest = {{"set_up_pod", histogram(1000, 1010, 1010)},
                                             {"tear_down_pod", histogram(5, 5, 5)}};
  auto p99 = recent_p99(oldest, newest);
  ASSERT_TRUE(p99.count("set_up_pod"));
  EXPECT_GT(p99["set_up_pod"], 1.0) << "the old fast operations do not hide the recent slow ones";
  ASSERT_TRUE(p99.count("tear_down_pod")) << "new in the window: all of it is recent";
  EXPECT_LE(p99["tear_down_pod"], 1.0);
  // No new observation over the window: no recent figure.
  const auto later = oldest;
  EXPECT_EQ(recent_p99(oldest, later).count("set_up_pod"), 0u);
}

TEST(ScrapeReaders, HistogramWindowStepsSayWhenAFigureGrew) {
  // Slow operations between the second and third scrapes only: the steps
  // place them there, and a name that added nothing is left out of a step.
  HistogramWindow window;
  const MonoTime t0{};
  window.add(t0, {{"run_podsandbox", histogram(10, 10, 10)}, {"list_podsandbox", histogram(50, 50, 50)}});
  window.add(t0 + std::chrono::seconds(5), {{"run_podsandbox", histogram(10, 10, 10)},
                                             {"list_podsandbox", histogram(55, 55, 55)}});
  window.add(t0 + std::chrono::seconds(10), {{"run_podsandbox", histogram(10, 10, 12)},
                                              {"list_podsandbox", histogram(60, 60, 60)}});
  const auto steps = window.steps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].to, t0 + std::chrono::seconds(5));
  EXPECT_EQ(steps[0].added.count("run_podsandbox"), 0u);
  EXPECT_EQ(steps[0].added.at("list_podsandbox").count, 5);
  EXPECT_EQ(steps[1].from, t0 + std::chrono::seconds(5));
  ASSERT_TRUE(steps[1].added.count("run_podsandbox"));
  EXPECT_EQ(steps[1].added.at("run_podsandbox").count, 2);
  EXPECT_GE(bucket_quantile(0.99, steps[1].added.at("run_podsandbox")).value_or(0), 10.0);  // past the highest bucket
}

TEST(ScrapeReaders, HistogramWindowAddedOverTheWholeWindow) {
  // One sample says nothing of when its counts grew; two say what the window
  // added; a count that went down is a restarted component, all of it new.
  HistogramWindow window(std::chrono::minutes(5));
  const MonoTime t0{};
  window.add(t0, {{"10-stall/CreateContainer", histogram(5, 5, 5)}});
  EXPECT_TRUE(window.added().empty());
  window.add(t0 + std::chrono::seconds(5), {{"10-stall/CreateContainer", histogram(7, 8, 8)},
                                             {"20-other/StopContainer", histogram(1, 1, 1)}});
  auto added = window.added();
  ASSERT_EQ(added.count("10-stall/CreateContainer"), 1u);
  EXPECT_EQ(added.at("10-stall/CreateContainer").count, 3);
  EXPECT_EQ(count_above(added.at("10-stall/CreateContainer"), 1).value_or(-1), 1);
  EXPECT_EQ(added.at("20-other/StopContainer").count, 1);
  window.add(t0 + std::chrono::seconds(10), {{"10-stall/CreateContainer", histogram(1, 1, 1)}});
  added = window.added();
  EXPECT_EQ(added.at("10-stall/CreateContainer").count, 1);
  // Past the window the oldest samples go: what they added is no longer counted.
  window.add(t0 + std::chrono::minutes(6), {{"10-stall/CreateContainer", histogram(1, 1, 1)}});
  window.add(t0 + std::chrono::minutes(11), {{"10-stall/CreateContainer", histogram(1, 1, 1)}});
  EXPECT_TRUE(window.added().empty());
}

TEST(ScrapeReaders, CounterWindowGrowthAndRestart) {
  CounterWindow window(std::chrono::minutes(5));
  const MonoTime t0{};
  window.add(t0, {{"10-stall/StopPodSandbox", 4}});
  EXPECT_TRUE(window.added().empty());
  window.add(t0 + std::chrono::seconds(5), {{"10-stall/StopPodSandbox", 4}, {"10-stall/CreateContainer", 2}});
  auto added = window.added();
  EXPECT_EQ(added.count("10-stall/StopPodSandbox"), 0u);  // did not grow
  EXPECT_EQ(added.at("10-stall/CreateContainer"), 2);     // new since the first sample
  window.add(t0 + std::chrono::seconds(10), {{"10-stall/StopPodSandbox", 1}});
  EXPECT_EQ(window.added().at("10-stall/StopPodSandbox"), 1);  // restarted: counts from zero
  window.add(t0 + std::chrono::minutes(6), {{"10-stall/StopPodSandbox", 1}});
  window.add(t0 + std::chrono::minutes(12), {{"10-stall/StopPodSandbox", 1}});
  EXPECT_TRUE(window.added().empty());
}

}  // namespace
}  // namespace plegscope
