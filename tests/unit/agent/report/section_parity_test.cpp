// The three formats carry the same sections: for each report below, the
// sections the JSON carries (its keys, where the section is shown), the
// text's (its lines' marks) and the HTML's (its ids) are one list.
#include <gtest/gtest.h>

#include <sstream>

#include "report/html.h"
#include "report/json.h"
#include "report/sections/section.h"
#include "report/text.h"
#include "sample_report.h"

namespace plegscope {
namespace {

using report::all_sections;
using report::Section;

std::vector<std::string> json_sections(const Report& r) {
  const nlohmann::json j = report_to_json(r);
  const Report back = report_from_json(j);
  std::vector<std::string> out;
  for (const Section* s : all_sections()) {
    bool all_keys = true;
    for (const auto& key : s->json_keys()) all_keys = all_keys && j.contains(key);
    if (all_keys && s->shown(back)) out.push_back(s->name());
  }
  return out;
}

std::vector<std::string> text_sections(const Report& r) {
  const std::string text = "\n" + render_text(r);
  std::vector<std::string> out;
  for (const Section* s : all_sections())
    if (text.find("\n" + std::string(s->text_mark())) != std::string::npos) out.push_back(s->name());
  return out;
}

std::vector<std::string> html_sections(const Report& r) {
  const std::string html = render_html(r);
  std::vector<std::string> out;
  for (const Section* s : all_sections())
    if (html.find("id=\"" + std::string(s->html_mark()) + "\"") != std::string::npos) out.push_back(s->name());
  return out;
}

std::vector<std::pair<std::string, Report>> reports() {
  using testing::sample;
  std::vector<std::pair<std::string, Report>> out;
  out.emplace_back("at risk", sample());
  out.emplace_back("relist in progress", testing::slow_relist_in_progress());
  Report healthy = sample();
  healthy.status = Status::kHealthy;
  healthy.causes.clear();
  healthy.timeline.clear();
  out.emplace_back("healthy, nothing completed", healthy);
  Report blind = sample();
  blind.blind = Report::Blind{"permission_denied", "unix:///run/containerd/containerd.sock", "run as root"};
  out.emplace_back("blind", blind);
  Report status = sample();
  status.runtime_status.enabled = true;
  status.runtime_status.not_ready_path = "runtime_status";
  status.runtime_status.not_ready_in_seconds = 0;
  status.runtime_status.kubelet_errors = {"container runtime is down"};
  status.runtime_status.last_error = "DEADLINE_EXCEEDED: context deadline exceeded";
  status.runtime_status.runtime_ready = RuntimeConditionValue{"RuntimeReady", true, "", ""};
  out.emplace_back("runtime Status hung", status);
  Report condition = sample();
  condition.node_condition.enabled = true;
  condition.node_condition.status = "True";
  condition.node_condition.reason = "RuntimeHung";
  condition.node_condition.writes = 3;
  condition.node_condition.error = "the API server answered 403 Forbidden";
  out.emplace_back("node condition written", condition);
  Report beside = sample();
  beside.kubelet.endpoint = "https://127.0.0.1:10250";
  beside.kubelet.reachable = true;
  beside.kubelet.relist_p99_seconds = 0.2;
  beside.runtime_metrics.endpoint = "http://127.0.0.1:1338/v1/metrics";
  beside.runtime_metrics.reachable = true;
  beside.runtime_metrics.in_flight = {{"UpdateContainerResources", 2, 14}};
  beside.journal_source.reachable = true;
  beside.journal.push_back({testing::kReportNow, "kubelet.service", "pleg_not_healthy", "PLEG is not healthy"});
  beside.host.reachable = true;
  out.emplace_back("kubelet, runtime metrics, journal, host", beside);
  Report everything = beside;
  everything.runtime_status = status.runtime_status;
  everything.node_condition = condition.node_condition;
  out.emplace_back("every section", everything);
  return out;
}

TEST(ReportSections, TheThreeFormatsCarryTheSameSections) {
  for (const auto& [name, r] : reports()) {
    const auto json = json_sections(r);
    EXPECT_EQ(text_sections(r), json) << name << "\n" << render_text(r);
    EXPECT_EQ(html_sections(r), json) << name;
  }
}

TEST(ReportSections, EverySectionShowsInSomeReport) {
  std::set<std::string> seen;
  for (const auto& [name, r] : reports())
    for (const auto& s : json_sections(r)) seen.insert(s);
  for (const Section* s : all_sections()) EXPECT_TRUE(seen.count(s->name())) << s->name();
}

TEST(ReportSections, EveryTopLevelKeyBelongsToOneSection) {
  const nlohmann::json j = report_to_json(testing::sample());
  std::map<std::string, int> owners;
  for (const Section* s : all_sections())
    for (const auto& key : s->json_keys()) ++owners[key];
  for (const auto& [key, value] : j.items()) EXPECT_EQ(owners[key], 1) << key;
  EXPECT_EQ(owners.size(), j.size());
}

}  // namespace
}  // namespace plegscope
