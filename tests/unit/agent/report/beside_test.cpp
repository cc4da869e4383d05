// The report's "kubelet" and "runtime_metrics" sections (, DESIGN
// §6): their JSON both ways, each scrape failure worded with its fix, and
// the text and HTML showing the kubelet's relist beside the agent's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "report/beside.h"
#include "report/html.h"
#include "report/json.h"
#include "report/text.h"
#include "sample_report.h"

namespace plegscope::testing {
namespace {

using nlohmann::json;

Report with_kubelet() {
  Report r = sample();
  r.kubelet.endpoint = "https://10.0.0.5:10250";
  r.kubelet.reachable = true;
  r.kubelet.tls_mode = "ca_file";
  r.kubelet.version = "v1.30.2";
  r.kubelet.model = "generic";
  r.kubelet.model_release = "1.30";
  r.kubelet.model_source = "read";
  r.kubelet.last_seen_age_seconds = 95;
  r.kubelet.relist_p99_seconds = 0.25;
  r.kubelet.relists_per_minute = 0;
  r.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  r.runtime_metrics.reachable = true;
  r.runtime_metrics.in_flight = {{"UpdateContainerResources", 1, 42}};
  return r;
}

TEST(ReportBeside, SectionsHaveTheDesignFields) {
  json j = report_to_json(with_kubelet());
  EXPECT_EQ(keys(j["kubelet"]),
            (std::set<std::string>{"endpoint", "reachable", "error", "version", "model", "model_release",
                                   "model_source", "tls_mode",
                                   "last_seen_age_seconds", "relist_p99_seconds", "relists_per_minute",
                                   "ready_message", "ready_error"}));
  EXPECT_TRUE(j["kubelet"]["error"].is_null());
  EXPECT_TRUE(j["kubelet"]["ready_message"].is_null());
  EXPECT_TRUE(j["kubelet"]["ready_error"].is_null());
  EXPECT_EQ(keys(j["runtime_metrics"]), (std::set<std::string>{"endpoint", "reachable", "error", "in_flight"}));
  EXPECT_EQ(keys(j["runtime_metrics"]["in_flight"][0]), (std::set<std::string>{"method", "count", "seconds"}));
  EXPECT_EQ(j["runtime_metrics"]["in_flight"][0]["method"], "UpdateContainerResources");
}

TEST(ReportBeside, RoundTrips) {
  Report r = with_kubelet();
  r.kubelet.reachable = false;
  r.kubelet.outcome = {ScrapeError::forbidden, 403, ""};
  json first = report_to_json(r);
  Report back = report_from_json(first);
  EXPECT_EQ(report_to_json(back), first);
  EXPECT_EQ(back.kubelet.endpoint, "https://10.0.0.5:10250");
  EXPECT_EQ(back.runtime_metrics.in_flight.at(0).seconds, 42);
  EXPECT_NE(back.kubelet.error.value_or("").find("nodes/metrics"), std::string::npos);
}

// get nodes/<node> refused: the words name the fix, the text and HTML show
// them, and JSON carries them back.
TEST(ReportBeside, ReadyFetchErrorsAreWordedWithTheirFix) {
  Report r = with_kubelet();
  r.kubelet.ready_outcome = ScrapeOutcome{ScrapeError::forbidden, 403, ""};
  json j = report_to_json(r);
  const std::string words = j["kubelet"]["ready_error"].get<std::string>();
  EXPECT_NE(words.find("HTTP 403 Forbidden"), std::string::npos) << words;
  EXPECT_NE(words.find("get on nodes (the ClusterRole in deploy/rbac.yaml)"), std::string::npos) << words;
  EXPECT_TRUE(j["kubelet"]["ready_message"].is_null());
  EXPECT_EQ(report_to_json(report_from_json(j)), j);
  EXPECT_NE(ready_error_words({ScrapeError::unauthorized, 401, ""}).find("--api-server-token-file"),
            std::string::npos);
  Report worded = r;
  word_beside(worded);
  std::ostringstream text;
  beside_text(worded, text);
  EXPECT_NE(text.str().find("Node Ready: the Node's Ready condition"), std::string::npos) << text.str();
  EXPECT_NE(beside_html(worded).find("HTTP 403 Forbidden"), std::string::npos);
  r.kubelet.ready_outcome = ScrapeOutcome{};  // read
  r.kubelet.ready_message = "kubelet is posting ready status";
  EXPECT_TRUE(report_to_json(r)["kubelet"]["ready_error"].is_null());
}

TEST(ReportBeside, OffSourcesArePresentWithTheReason) {
  json j = report_to_json(sample());  // neither reader configured
  EXPECT_EQ(j["kubelet"]["reachable"], false);
  EXPECT_NE(j["kubelet"]["error"].get<std::string>().find("--kubelet-endpoint"), std::string::npos);
  EXPECT_EQ(j["runtime_metrics"]["reachable"], false);
  EXPECT_NE(j["runtime_metrics"]["error"].get<std::string>().find("--runtime-metrics-endpoint"), std::string::npos);
  EXPECT_TRUE(j["runtime_metrics"]["in_flight"].empty());
}

std::string kubelet_error(ScrapeError error, long status, const std::string& tls_mode = "ca_file") {
  Report::Kubelet k;
  k.endpoint = "https://10.0.0.5:10250";
  k.tls_mode = tls_mode;
  k.outcome = {error, status, ""};
  return kubelet_error_words(k);
}

TEST(ReportBeside, EachFailureCarriesItsFix) {
  EXPECT_NE(kubelet_error(ScrapeError::unauthorized, 401).find("webhook"), std::string::npos);
  EXPECT_NE(kubelet_error(ScrapeError::forbidden, 403).find("get on nodes/metrics"), std::string::npos);
  const std::string tls = kubelet_error(ScrapeError::tls_verify_failed, 0);
  EXPECT_NE(tls.find("--kubelet-ca-file"), std::string::npos);
  EXPECT_NE(tls.find("verified against --kubelet-ca-file"), std::string::npos) << "names the TLS mode in use";
  EXPECT_NE(kubelet_error(ScrapeError::unreachable, 0).find("NODE_IP"), std::string::npos);
  EXPECT_NE(kubelet_error(ScrapeError::too_large, 200).find("larger"), std::string::npos);
  EXPECT_NE(kubelet_error(ScrapeError::unexpected_content, 200).find("not the kubelet's metrics"), std::string::npos);
  for (ScrapeError e : {ScrapeError::credentials_unreadable, ScrapeError::timeout, ScrapeError::tls_failed,
                        ScrapeError::not_found, ScrapeError::http_status, ScrapeError::bad_input})
    EXPECT_FALSE(kubelet_error(e, 500).empty());
}

TEST(ReportBeside, TextShowsTheKubeletsRelistBesideTheAgents) {
  const std::string text = render_text(with_kubelet());
  EXPECT_NE(text.find("Kubelet beside the agent: https://10.0.0.5:10250"), std::string::npos) << text;
  EXPECT_NE(text.find("relist p99: agent 70ms, kubelet 250ms"), std::string::npos) << text;
  EXPECT_NE(text.find("PLEG model generic"), std::string::npos) << text;
  EXPECT_NE(text.find("in flight: UpdateContainerResources"), std::string::npos) << text;
}

TEST(ReportBeside, HtmlDrawsBothSeriesInOneChart) {
  const std::string html = render_html(with_kubelet());
  const auto chart = html.find("id=\"kubelet-chart\"");
  ASSERT_NE(chart, std::string::npos);
  const auto end = html.find("</svg>", chart);
  const std::string svg = html.substr(chart, end - chart);
  EXPECT_NE(svg.find("class=\"agent\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"kubelet\""), std::string::npos);
  EXPECT_NE(html.find("id=\"runtime-metrics\""), std::string::npos);
}

TEST(ReportBeside, UnreachableKubeletShowsItsErrorInTextAndHtml) {
  Report r = sample();
  r.kubelet.endpoint = "https://10.0.0.5:10250";
  r.kubelet.outcome = {ScrapeError::forbidden, 403, ""};
  EXPECT_NE(render_text(r).find("nodes/metrics"), std::string::npos);
  EXPECT_NE(render_html(r).find("nodes/metrics"), std::string::npos);
}

}  // namespace
}  // namespace plegscope::testing
