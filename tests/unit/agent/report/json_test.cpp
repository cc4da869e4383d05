// The /diagnose JSON: exactly the DESIGN §6 field names (plus the relist's
// lateness and each timeline entry's initial/in_progress), numbers rounded
// to microseconds, and back: unknown names are errors, missing optional
// fields keep their defaults.
#include "report/json.h"

#include <gtest/gtest.h>

#include <set>

#include "sample_report.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;
using nlohmann::json;

TEST(ReportJson, ExactlyTheDesignFieldNames) {
  json j = report_to_json(sample());
  EXPECT_EQ(keys(j),
            (std::set<std::string>{"schema_version", "node", "generated_at", "healthy", "health_message", "status",
                                   "summary", "causes", "blind", "relist", "runtime", "pods", "events",
                                   "node_pressure", "timeline", "forecast", "event_lag",
                                   "journal", "journal_source", "kubelet", "runtime_metrics", "runtime_status", "host",
                                   "node_condition"}));
  EXPECT_EQ(keys(j["causes"][0]), (std::set<std::string>{"id", "severity", "confidence", "summary",
                                                         "evidence", "remedy", "advice"}));
  EXPECT_EQ(keys(j["causes"][0]["evidence"][0]),
            (std::set<std::string>{"signal", "value", "threshold"}));
  EXPECT_TRUE(j["causes"][0]["evidence"][1]["threshold"].is_null());
  // §6's relist fields, the evented mode and its fall-back, and
  // how late events reach the kubelet.
  EXPECT_EQ(
      keys(j["relist"]),
      (std::set<std::string>{"period_seconds", "threshold_seconds", "seconds_since_last_seen",
                             "in_progress_seconds", "duration_p50_seconds", "duration_p99_seconds",
                             "events_late_by_seconds", "stretched_period_seconds", "stretch_reason", "mode", "evented_fallback_reason"}));
  EXPECT_EQ(keys(j["runtime"]),
            (std::set<std::string>{"endpoint", "name", "version", "operations", "slowest_pods"}));
  EXPECT_EQ(keys(j["runtime"]["operations"]["list_containers"]),
            (std::set<std::string>{"count", "errors", "p50_seconds", "p99_seconds", "max_seconds",
                                   "in_flight", "oldest_in_flight_seconds"}));
  EXPECT_EQ(keys(j["pods"]), (std::set<std::string>{"sandboxes", "containers", "running_containers",
                                                    "exited_containers", "pods_to_reinspect"}));
  EXPECT_EQ(keys(j["events"]),
            (std::set<std::string>{"per_relist_p99", "by_type", "discarded_total", "top_pods"}));
  EXPECT_EQ(keys(j["events"]["top_pods"][0]),
            (std::set<std::string>{"uid", "namespace", "name", "events"}));
  EXPECT_EQ(j["events"]["top_pods"][0]["namespace"], "default");
  EXPECT_EQ(keys(j["node_pressure"]),
            (std::set<std::string>{"cpu_some_avg10", "io_some_avg10", "memory_some_avg10", "load1",
                                   "pids", "pid_max"}));
  EXPECT_TRUE(j["node_pressure"]["io_some_avg10"].is_null());  // no data is null, not 0
  // §6's timeline fields, and which entry is the first relist or the one running.
  EXPECT_EQ(keys(j["timeline"][0]),
            (std::set<std::string>{"start", "duration_seconds", "list_seconds", "status_seconds",
                                   "status_calls", "pods", "containers", "events", "error",
                                   "initial", "in_progress", "lists_done", "pods_changed",
                                   "pods_inspected"}));
  EXPECT_TRUE(j["timeline"][0]["error"].is_null());
  EXPECT_EQ(j["timeline"][0]["initial"], true);
  EXPECT_EQ(j["timeline"][1]["initial"], false);
  EXPECT_EQ(j["timeline"][1]["in_progress"], false);
  EXPECT_EQ(j["timeline"][2]["error"], "UNAVAILABLE");
  EXPECT_EQ(keys(j["forecast"]), (std::set<std::string>{"seconds_to_unhealthy"}));
  // Event lag, and evented mode's apart (present with count 0 in
  // generic mode: a section is never missing).
  EXPECT_EQ(keys(j["event_lag"]),
            (std::set<std::string>{"p50_seconds", "p99_seconds", "events", "invalid", "worst_pods", "evented"}));
  EXPECT_EQ(keys(j["event_lag"]["evented"]), (std::set<std::string>{"delivery", "cache_update"}));
  EXPECT_EQ(keys(j["event_lag"]["evented"]["delivery"]),
            (std::set<std::string>{"count", "p50_seconds", "p99_seconds", "invalid"}));
  EXPECT_EQ(keys(j["event_lag"]["evented"]["cache_update"]), keys(j["event_lag"]["evented"]["delivery"]));
  EXPECT_EQ(j["generated_at"], "2026-09-21T14:13:20.250Z");
  EXPECT_EQ(j["status"], "at_risk");
  EXPECT_EQ(j["causes"][0]["id"], "runtime_hung");
  EXPECT_EQ(j["causes"][0]["severity"], "critical");
}

TEST(ReportJson, NullWhenThereIsNoValue) {
  Report r = sample();
  r.seconds_to_unhealthy.reset();
  r.relist.seconds_since_last_seen.reset();
  r.relist.in_progress_seconds.reset();
  json j = report_to_json(r);
  EXPECT_TRUE(j["forecast"]["seconds_to_unhealthy"].is_null());
  EXPECT_TRUE(j["relist"]["seconds_since_last_seen"].is_null());
  EXPECT_TRUE(j["relist"]["in_progress_seconds"].is_null());
  EXPECT_TRUE(j["relist"]["events_late_by_seconds"].is_null());  // relists are on time
  EXPECT_TRUE(j["relist"]["evented_fallback_reason"].is_null());
}

TEST(ReportJson, RelistInProgressAndLateness) {
  json j = report_to_json(slow_relist_in_progress());
  EXPECT_EQ(j["relist"]["events_late_by_seconds"], 9.6);
  const json& last = j["timeline"].back();
  EXPECT_EQ(last["in_progress"], true);
  EXPECT_EQ(last["duration_seconds"], 42.0);
  EXPECT_EQ(last["status_calls"], 14);
}

TEST(ReportJson, NumbersRoundedToMicroseconds) {
  Report r = sample();
  r.causes[0].confidence = 0.123456789;
  r.relist.duration_p99_seconds = 1.00000049;
  r.relist.duration_p50_seconds = std::nan("");
  json j = report_to_json(r);
  EXPECT_EQ(j["causes"][0]["confidence"], 0.123457);
  EXPECT_EQ(j["relist"]["duration_p99_seconds"], 1.0);
  EXPECT_EQ(j["relist"]["duration_p50_seconds"], 0.0);
  EXPECT_TRUE(j["runtime"]["operations"]["list_containers"]["count"].is_number_integer());
}

TEST(ReportJson, RoundTrips) {
  for (const Report& r : {sample(), slow_relist_in_progress()}) {
    json first = report_to_json(r);
    Report back = report_from_json(first);
    EXPECT_EQ(report_to_json(back), first);
    EXPECT_EQ(back.generated_at, kReportNow);
    EXPECT_EQ(back.causes.at(0).id, CauseId::kRuntimeHung);
    EXPECT_EQ(back.timeline.at(2).error, GrpcCode::kUnavailable);
    EXPECT_EQ(back.timeline.back().in_progress, r.timeline.back().in_progress);
  }
}

TEST(ReportJson, RejectsWhatIsNotAReport) {
  EXPECT_THROW(report_from_json(json::parse(R"({"hello": 1})")), std::exception);
  EXPECT_THROW(report_from_json(json::parse("[1,2]")), std::exception);
  EXPECT_THROW(report_from_json(json::parse(R"({"status": "healthy", "causes": 3})")),
               std::exception);
}

// What `plegscope diagnose --url` prints after "not a plegscope report: ".
std::string error_of(const json& j) {
  try {
    report_from_json(j);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(ReportJson, UnknownNamesAreOneLineErrors) {
  json j = report_to_json(sample());
  json bad = j;
  bad["causes"][0]["id"] = "runtime_haunted";
  EXPECT_EQ(error_of(bad), "unknown cause id \"runtime_haunted\"");
  bad = j;
  bad["status"] = "fine";
  EXPECT_EQ(error_of(bad), "unknown status \"fine\"");
  bad = j;
  bad["causes"][0]["severity"] = "dire";
  EXPECT_EQ(error_of(bad), "unknown severity \"dire\"");
  bad = j;
  bad["timeline"][2]["error"] = "UNAVAILABLEISH";
  EXPECT_EQ(error_of(bad), "unknown gRPC code \"UNAVAILABLEISH\"");
  bad = j;
  bad["generated_at"] = "yesterday";
  EXPECT_EQ(error_of(bad).find('\n'), std::string::npos);
  EXPECT_NE(error_of(bad), "");
}

// A float where a count belongs must not reach nlohmann's bare cast when it
// cannot fit (found by fuzz_report_json); counts that fit are read.
TEST(ReportJson, NumbersOutOfRangeAreOneLineErrors) {
  json j = report_to_json(sample());
  json bad = j;
  bad["timeline"][0]["events"] = 2.4e50;
  EXPECT_EQ(error_of(bad), "number 2.4e+50 at /timeline/0/events is out of range");
  bad = j;
  bad["runtime"]["operations"]["list_containers"]["count"] = -1e19;
  EXPECT_NE(error_of(bad).find("/runtime/operations/list_containers/count is out of range"),
            std::string::npos);
  bad = j;
  bad["events"]["discarded_total"] = 7.0;
  EXPECT_EQ(report_from_json(bad).events.discarded_total, 7);
}

TEST(ReportJson, MissingOptionalFieldsKeepDefaults) {
  Report r =
      report_from_json(json::parse(R"({"status": "at_risk", "causes": [{"id": "event_storm"}],
                                              "relist": {"period_seconds": 2}, "timeline": [{"events": 3}]})"));
  EXPECT_EQ(r.status, Status::kAtRisk);
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes[0].id, CauseId::kEventStorm);
  EXPECT_EQ(r.causes[0].severity, Severity::kWarning);
  EXPECT_TRUE(r.causes[0].evidence.empty());
  EXPECT_EQ(r.relist.period_seconds, 2);
  EXPECT_EQ(r.relist.threshold_seconds, 180);
  EXPECT_EQ(r.relist.mode, "generic");
  EXPECT_FALSE(r.relist.events_late_by_seconds);
  ASSERT_EQ(r.timeline.size(), 1u);
  EXPECT_EQ(r.timeline[0].events, 3);
  EXPECT_FALSE(r.timeline[0].in_progress);
  EXPECT_FALSE(r.seconds_to_unhealthy);
  EXPECT_EQ(r.node, "");
}

}  // namespace
}  // namespace plegscope
