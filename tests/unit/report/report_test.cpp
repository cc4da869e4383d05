// The renderings: JSON with exactly the DESIGN §6 field names (and back),
// the terminal text, and the self-contained HTML page.
#include <gtest/gtest.h>

#include <set>

#include "diagnose_command.h"
#include "report/html.h"
#include "report/json.h"
#include "report/text.h"

namespace plegscope {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const TimePoint kNow = TimePoint(seconds(1'790'000'000)) + std::chrono::milliseconds(250);

Report sample() {
  Report r;
  r.node = "worker-3";
  r.generated_at = kNow;
  r.healthy = true;
  r.status = Status::kAtRisk;
  r.summary = "PLEG is at risk because ListContainers has been in flight for 12s: restart it.";
  Cause c;
  c.id = CauseId::kRuntimeHung;
  c.severity = Severity::kCritical;
  c.confidence = 0.85;
  c.summary = "A CRI call is hung.";
  c.evidence = {{"oldest_in_flight_seconds{list_containers}", 12.5, 10}, {"in_flight{list_containers}", 1, {}}};
  c.remedy = "Confirm: `crictl ps -a` hangs.";
  r.causes.push_back(c);
  r.relist.seconds_since_last_seen = 13.5;
  r.relist.in_progress_seconds = 12.5;
  r.relist.duration_p50_seconds = 0.004;
  r.relist.duration_p99_seconds = 0.07;
  r.runtime = {"unix:///run/containerd/containerd.sock", "containerd", "1.6.20", {}};
  OperationReport op;
  op.count = 15;
  op.in_flight = 1;
  op.oldest_in_flight_seconds = 12.5;
  r.runtime.operations["list_containers"] = op;
  r.pods = {10, 20, 20, 0, 0};
  r.events.per_relist_p99 = 2;
  r.events.by_type = {{"ContainerStarted", 30}, {"ContainerDied", 2}};
  r.events.top_pods = {{"uid-1", "default", "pod-1", 3}};
  r.node_pressure.cpu_some_avg10 = 0.12;
  r.node_pressure.load1 = 0.52;
  r.node_pressure.pids = 1234;
  r.node_pressure.pid_max = 4194304;
  for (int i = 0; i < 5; ++i) {
    TimelineEntry e;
    e.start = kNow - seconds(20 - i);
    e.duration_seconds = 0.004 + i * 0.001;
    e.list_seconds = 0.002;
    e.status_seconds = 0.001;
    e.pods = 10;
    e.containers = 20;
    if (i == 2) e.error = GrpcCode::kUnavailable;
    r.timeline.push_back(e);
  }
  r.seconds_to_unhealthy = 166.5;
  return r;
}

std::set<std::string> keys(const json& j) {
  std::set<std::string> out;
  for (const auto& [k, v] : j.items()) out.insert(k);
  return out;
}

TEST(ReportJson, ExactlyTheDesignFieldNames) {
  json j = report_to_json(sample());
  EXPECT_EQ(keys(j), (std::set<std::string>{"node", "generated_at", "healthy", "health_message", "status", "summary",
                                            "causes", "relist", "runtime", "pods", "events", "node_pressure",
                                            "timeline", "forecast"}));
  EXPECT_EQ(keys(j["causes"][0]),
            (std::set<std::string>{"id", "severity", "confidence", "summary", "evidence", "remedy"}));
  EXPECT_EQ(keys(j["causes"][0]["evidence"][0]), (std::set<std::string>{"signal", "value", "threshold"}));
  EXPECT_TRUE(j["causes"][0]["evidence"][1]["threshold"].is_null());
  // §6's relist fields, plus the evented mode and its fall-back (issue 4:
  // the fall-back must be visible in /diagnose).
  EXPECT_EQ(keys(j["relist"]),
            (std::set<std::string>{"period_seconds", "threshold_seconds", "seconds_since_last_seen",
                                   "in_progress_seconds", "duration_p50_seconds", "duration_p99_seconds",
                                   "events_late_by_seconds", "mode", "evented_fallback_reason"}));
  EXPECT_EQ(keys(j["runtime"]), (std::set<std::string>{"endpoint", "name", "version", "operations"}));
  EXPECT_EQ(keys(j["runtime"]["operations"]["list_containers"]),
            (std::set<std::string>{"count", "errors", "p50_seconds", "p99_seconds", "max_seconds", "in_flight",
                                   "oldest_in_flight_seconds"}));
  EXPECT_EQ(keys(j["pods"]), (std::set<std::string>{"sandboxes", "containers", "running_containers",
                                                    "exited_containers", "pods_to_reinspect"}));
  EXPECT_EQ(keys(j["events"]), (std::set<std::string>{"per_relist_p99", "by_type", "discarded_total", "top_pods"}));
  EXPECT_EQ(keys(j["events"]["top_pods"][0]), (std::set<std::string>{"uid", "namespace", "name", "events"}));
  EXPECT_EQ(keys(j["node_pressure"]), (std::set<std::string>{"cpu_some_avg10", "io_some_avg10", "memory_some_avg10",
                                                             "load1", "pids", "pid_max"}));
  EXPECT_TRUE(j["node_pressure"]["io_some_avg10"].is_null());  // no data is null, not 0
  EXPECT_EQ(keys(j["timeline"][0]),
            (std::set<std::string>{"start", "duration_seconds", "list_seconds", "status_seconds", "status_calls",
                                   "pods", "containers", "events", "error", "initial", "in_progress"}));
  EXPECT_TRUE(j["timeline"][0]["error"].is_null());
  EXPECT_EQ(j["timeline"][2]["error"], "UNAVAILABLE");
  EXPECT_EQ(keys(j["forecast"]), (std::set<std::string>{"seconds_to_unhealthy"}));
  EXPECT_EQ(j["generated_at"], "2026-09-21T14:13:20.250Z");
}

TEST(ReportJson, NullForecastAndNoRelistYet) {
  Report r = sample();
  r.seconds_to_unhealthy.reset();
  r.relist.seconds_since_last_seen.reset();
  r.relist.in_progress_seconds.reset();
  json j = report_to_json(r);
  EXPECT_TRUE(j["forecast"]["seconds_to_unhealthy"].is_null());
  EXPECT_TRUE(j["relist"]["seconds_since_last_seen"].is_null());
  EXPECT_TRUE(j["relist"]["in_progress_seconds"].is_null());
}

TEST(ReportJson, RoundTrips) {
  json first = report_to_json(sample());
  Report back = report_from_json(first);
  EXPECT_EQ(report_to_json(back), first);
  EXPECT_EQ(back.generated_at, kNow);
}

TEST(ReportJson, RejectsWhatIsNotAReport) {
  EXPECT_THROW(report_from_json(json::parse(R"({"hello": 1})")), std::exception);
  EXPECT_THROW(report_from_json(json::parse("[1,2]")), std::exception);
}

TEST(ReportText, HasStatusCausesEvidenceRemedy) {
  std::string text = render_text(sample());
  EXPECT_NE(text.find("STATUS: AT RISK"), std::string::npos);
  EXPECT_NE(text.find("unhealthy in about 2m47s"), std::string::npos) << text;
  EXPECT_NE(text.find("1. runtime_hung"), std::string::npos);
  EXPECT_NE(text.find("oldest_in_flight_seconds{list_containers}"), std::string::npos);
  EXPECT_NE(text.find("crictl ps -a"), std::string::npos);
  EXPECT_NE(text.find("list_containers"), std::string::npos);
  EXPECT_NE(text.find("1 failed"), std::string::npos);
}

TEST(ReportText, HealthyReportSaysNoCause) {
  Report r = sample();
  r.causes.clear();
  r.status = Status::kHealthy;
  r.seconds_to_unhealthy.reset();
  std::string text = render_text(r);
  EXPECT_NE(text.find("STATUS: HEALTHY"), std::string::npos);
  EXPECT_NE(text.find("Causes: none"), std::string::npos);
}

TEST(ReportHtml, SelfContainedWithChartsAndCauses) {
  std::string html = render_html(sample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<svg id=\"relist-duration-chart\""), std::string::npos);
  EXPECT_NE(html.find("id=\"threshold-line\""), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"list-status-chart\""), std::string::npos);
  EXPECT_NE(html.find("data-cause=\"runtime_hung\""), std::string::npos);
  EXPECT_NE(html.find("id=\"operations\""), std::string::npos);
  EXPECT_NE(html.find("id=\"top-pods\""), std::string::npos);
  EXPECT_NE(html.find("relist in progress"), std::string::npos);
  EXPECT_NE(html.find("<code>crictl ps -a</code>"), std::string::npos);
  // No external assets.
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(ReportHtml, EscapesRuntimeProvidedText) {
  Report r = sample();
  r.node = "<script>alert(1)</script>";
  r.events.top_pods = {{"u", "ns\"", "<b>pod</b>", 1}};
  std::string html = render_html(r);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>pod</b>"), std::string::npos);
}

TEST(DiagnoseCommand, ParsesUrls) {
  auto u = parse_http_url("http://127.0.0.1:9547");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 9547);
  EXPECT_EQ(u->path, "");
  u = parse_http_url("http://node-3/plegscope/");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->port, 80);
  EXPECT_EQ(u->path, "/plegscope");
  EXPECT_FALSE(parse_http_url("https://x:1"));
  EXPECT_FALSE(parse_http_url("http://:80"));
  EXPECT_FALSE(parse_http_url("http://x:99999"));
  EXPECT_FALSE(parse_http_url("http://x:abc"));
}

}  // namespace
}  // namespace plegscope
