// The self-contained HTML page: charts, ranked causes, escaping, and the
// relist in progress drawn once, as its own kind of bar.
#include "report/html.h"

#include <gtest/gtest.h>

#include "sample_report.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
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
  EXPECT_NE(html.find("relist in progress for 12s"), std::string::npos);
  EXPECT_NE(html.find("<code>crictl ps -a</code>"), std::string::npos);
  EXPECT_EQ(html.find("id=\"events-late\""), std::string::npos);
  // No external assets.
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(ReportHtml, RelistInProgressDrawnOnceAndDescribed) {
  // An agent that sends only relist.in_progress_seconds, and one that also
  // sends the relist as the timeline's last entry: one bar either way.
  for (const Report& r : {sample(), slow_relist_in_progress()}) {
    std::string html = render_html(r);
    EXPECT_EQ(occurrences(html, "class=\"relist in-progress\""), 1u);
    EXPECT_EQ(occurrences(html, "class=\"relist\""), 4u);  // completed, not failed
    EXPECT_EQ(occurrences(html, "class=\"relist failed\""), 1u);
  }
  std::string html = render_html(slow_relist_in_progress());
  EXPECT_NE(html.find("relist in progress for 42s"), std::string::npos);
  EXPECT_NE(html.find("<p id=\"relist-in-progress\" class=\"running\"><b>Relist in progress:</b> "
                      "running for 42s; "
                      "lists done in 8s (20 pods, 40 containers)"),
            std::string::npos);
  EXPECT_EQ(occurrences(html, "class=\"list in-progress\""), 1u);
  EXPECT_EQ(occurrences(html, "class=\"status in-progress\""), 1u);
  EXPECT_NE(html.find("<b id=\"events-late\">events reach the kubelet up to 9.6s late</b>"),
            std::string::npos);
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

}  // namespace
}  // namespace plegscope
