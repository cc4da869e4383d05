// The terminal rendering: status, causes with evidence and remedy, the
// relist in progress as far as it got, and how late events are.
#include "report/text.h"

#include <gtest/gtest.h>

#include "report/html.h"
#include "report/lag_text.h"
#include "sample_report.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;

// Words in this order, however the renderer wrapped them.
bool has(const std::string& text, const std::string& needle) {
  std::string flat;
  for (char ch : text) {
    bool space = ch == ' ' || ch == '\n';
    if (!(space && !flat.empty() && flat.back() == ' ')) flat += space ? ' ' : ch;
  }
  return flat.find(needle) != std::string::npos;
}

TEST(ReportText, HasStatusCausesEvidenceRemedy) {
  std::string text = render_text(sample());
  EXPECT_TRUE(has(text, "STATUS: AT RISK"));
  EXPECT_TRUE(has(text, "unhealthy in about 2m47s")) << text;
  EXPECT_TRUE(has(text, "1. runtime_hung"));
  EXPECT_TRUE(has(text, "oldest_in_flight_seconds{list_containers}"));
  EXPECT_TRUE(has(text, "crictl ps -a"));
  EXPECT_TRUE(has(text, "list_containers"));
  EXPECT_TRUE(has(text, "over 5 completed relists (1 failed)")) << text;
  EXPECT_TRUE(has(text, "in progress: running for 12s"))
      << text;  // from relist.in_progress_seconds alone
  EXPECT_FALSE(has(text, "late")) << text;
}

TEST(ReportText, ABlindAgentsStatusWordIsBlindNotAtRisk) {
  Report r = sample();
  r.blind = Report::Blind{"no_such_socket", "unix:///run/containerd/containerd.sock", ""};
  const std::string text = render_text(r);
  EXPECT_TRUE(has(text, "STATUS: BLIND (plegscope cannot see the runtime: no_such_socket; the node is not judged)"))
      << text;
  EXPECT_FALSE(has(text, "AT RISK")) << text;
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<div class=\"status\">BLIND</div>"), std::string::npos);
  EXPECT_NE(html.find("<title>plegscope: BLIND on "), std::string::npos);
  EXPECT_NE(html.find("data-status=\"at_risk\""), std::string::npos) << "the contract's status stays";
}

TEST(ReportText, HealthyReportSaysNoCause) {
  Report r = sample();
  r.causes.clear();
  r.status = Status::kHealthy;
  r.seconds_to_unhealthy.reset();
  std::string text = render_text(r);
  EXPECT_TRUE(has(text, "STATUS: HEALTHY"));
  EXPECT_TRUE(has(text, "Causes: none"));
}

TEST(ReportText, RelistInProgressAsFarAsItGot) {
  std::string text = render_text(slow_relist_in_progress());
  // Wrapped at the page width: check the pieces.
  EXPECT_TRUE(has(text, "in progress: running for 42s; lists done in 8s (20 pods, 40 containers); 6/20"))
      << text;
  EXPECT_TRUE(has(text, "pods inspected; 14 status calls so far (3.1s) for 20 events")) << text;
  EXPECT_TRUE(has(text, "events reach the kubelet up to 9.6s late")) << text;
  // The relist in progress is not one of the completed ones.
  EXPECT_TRUE(has(text, "over 5 completed relists (1 failed)")) << text;
  EXPECT_TRUE(has(text, "last 5: ")) << text;
}

TEST(ReportText, FirstRelistStillRunning) {
  Report r = slow_relist_in_progress();
  r.timeline.erase(r.timeline.begin(), r.timeline.end() - 1);
  r.timeline.back().initial = true;
  std::string text = render_text(r);
  EXPECT_TRUE(has(
      text,
      "in progress: running for 42s (the first relist: every pod is inspected once); lists done"))
      << text;
  EXPECT_TRUE(has(text, "no relist has completed yet")) << text;
  EXPECT_FALSE(has(text, "duration p50")) << text;
}

TEST(ReportText, DescribesEachStageOfTheRelistInProgress) {
  TimelineEntry e;
  e.in_progress = true;
  e.initial = true;
  e.duration_seconds = 3;
  EXPECT_EQ(
      describe_in_progress(e),
      "running for 3s (the first relist: every pod is inspected once); waiting for ListPodSandbox");
  e.initial = false;
  e.list_seconds = 2.5;
  e.lists_done = 1;
  EXPECT_EQ(describe_in_progress(e),
            "running for 3s; ListPodSandbox answered after 2.5s, waiting for ListContainers");
  e.pods = 1;
  e.containers = 2;
  e.lists_done = 2;
  EXPECT_EQ(describe_in_progress(e), "running for 3s; lists done in 2.5s (1 pod, 2 containers)");
  e.events = 1;
  e.pods_changed = 1;
  e.status_calls = 1;
  e.status_seconds = 0.2;
  EXPECT_EQ(describe_in_progress(e),
            "running for 3s; lists done in 2.5s (1 pod, 2 containers); 0/1 changed pod inspected; "
            "1 status call so far (200ms) for 1 event");
}

TEST(ReportText, RemedyOnePartPerLine) {
  EXPECT_EQ(remedy_parts("Confirm: `crictl ps -a` hangs. Fix: restart it. Do not: reboot."),
            (std::vector<std::string>{"Confirm: `crictl ps -a` hangs.", "Fix: restart it.",
                                      "Do not: reboot."}));
  EXPECT_EQ(remedy_parts("Confirm: only this."), (std::vector<std::string>{"Confirm: only this."}));
  Report r = sample();
  r.causes[0].remedy =
      "Confirm: `crictl ps -a` hangs. Fix: restart it. Do not: reboot automatically.";
  std::string text = render_text(r);
  EXPECT_NE(
      text.find("     remedy:\n       Confirm: `crictl ps -a` hangs.\n       Fix: restart it.\n"
                "       Do not: reboot automatically.\n"),
      std::string::npos)
      << text;
}

TEST(ReportText, SaysWhenTheAgentStretchesItsPeriod) {
  Report r = sample();
  EXPECT_FALSE(has(render_text(r), "do no harm"));
  r.relist.stretched_period_seconds = 8;
  r.relist.stretch_reason = "3 of the last 5 relists ran longer than the period";
  std::string text = render_text(r);
  EXPECT_TRUE(has(text, "do no harm: plegscope relists every 8s instead of every 1s")) << text;
  EXPECT_TRUE(has(text, "ran longer than the period")) << text;
}

// The demo's case: the agent stretched its own period to 8 s, so it saw
// starts 8.9 s late; the kubelet, at 1 s, sees them a period plus a relist
// late. The agent's back-off is never presented as the node's lag.
TEST(ReportText, TheAgentsStretchedPeriodIsNotTheNodesLag) {
  Report r = sample();
  r.event_lag.events = 40;
  r.event_lag.p50_seconds = 7.5;
  r.event_lag.p99_seconds = 8.9;
  r.event_lag.worst_pods.push_back({"uid", "default", "web-0", "app", "ContainerStarted", 8.9});
  r.relist.duration_p99_seconds = 2.4;
  ASSERT_TRUE(lag_harm(r));
  EXPECT_EQ(*lag_harm(r), "containers that start are seen 8.9s late (p99 over 40 events, p50 7.5s)")
      << "unstretched, the agent's lag is the kubelet's";
  r.relist.stretched_period_seconds = 8;
  ASSERT_TRUE(lag_harm(r));
  EXPECT_EQ(*lag_harm(r),
            "containers that start are seen up to 3.4s late by the kubelet (its 1s period plus relists of p99 "
            "2.4s); plegscope, relisting every 8s to spare the runtime, saw them 8.9s late");
  r.relist.duration_p99_seconds = 0.3;
  EXPECT_FALSE(lag_harm(r)) << "the kubelet sees changes within 1.3s: only the agent is late";
}

// The window's figures are the agent's own relists': while it stretches its
// period they say so, in text and HTML, and the HTML marks no harm the
// kubelet does not have.
TEST(ReportText, StretchedLagFiguresAreLabelledTheAgents) {
  Report r = sample();
  r.event_lag.events = 40;
  r.event_lag.p50_seconds = 7.5;
  r.event_lag.p99_seconds = 8.9;
  r.relist.duration_p99_seconds = 0.3;
  EXPECT_EQ(lag_figures(r), "p50 7.5s, p99 8.9s over 40 events (runtime timestamp to the relist that saw it)");
  EXPECT_TRUE(has(render_html(r), "data-material=\"true\"")) << "unstretched, 8.9s is the node's lag";
  r.relist.stretched_period_seconds = 8;
  EXPECT_EQ(lag_figures(r),
            "p50 7.5s, p99 8.9s over 40 events (runtime timestamp to plegscope's relist that saw it, relisting "
            "every 8s to spare the runtime; the kubelet relists every 1s)");
  const std::string text = render_text(r);
  EXPECT_TRUE(has(text, "plegscope's relist that saw it")) << text;
  EXPECT_FALSE(has(text, "are seen 8.9s late")) << text;
  EXPECT_TRUE(has(render_html(r), "data-material=\"false\"")) << "the kubelet sees changes within 1.3s";
}

}  // namespace
}  // namespace plegscope
