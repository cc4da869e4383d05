// Event lag over the window, from hand-built relists: p50/p99 as
// histogram_quantile would answer over the summed buckets, the worst pods
// one line each (a crash-looping pod is one pod), the initial and the
// in-progress relist left out, invalid timestamps counted apart; and the
// report's summary names the lag only when it is the harm (p99 several
// relist periods), never on a steady node.
#include <gtest/gtest.h>

#include "diagnoser/event_lag_window.h"
#include "report/html.h"
#include "report/lag_text.h"
#include "report/text.h"
#include "snapshot_builder.h"

namespace plegscope {
namespace {

using testing::Builder;
using testing::secs;

PodLag died(const std::string& uid, double lag_seconds, const std::string& container = "app") {
  PodLag p;
  p.uid = uid;
  p.namespace_ = "default";
  p.name = "pod-" + uid;
  p.container = container;
  p.type = PodLifecycleEventType::ContainerDied;
  p.lag = secs(lag_seconds);
  return p;
}

RelistRecord relist_with_lags(const std::vector<PodLag>& lags) {
  RelistRecord r = testing::relist();
  for (const auto& l : lags) r.lag.add(l);
  return r;
}

TEST(EventLagWindow, QuantilesOverTheSummedBucketsOfTheWindow) {
  // 98 events at 0.3-0.5 s (bucket 0.25-0.5) and 2 at 20 s (bucket 10-30).
  std::vector<RelistRecord> timeline;
  for (int i = 0; i < 49; ++i)
    timeline.push_back(relist_with_lags({died("a" + std::to_string(i), 0.3), died("b" + std::to_string(i), 0.5)}));
  timeline.push_back(relist_with_lags({died("slow1", 20), died("slow2", 20)}));
  Report::EventLag lag = event_lag_over(timeline);
  EXPECT_EQ(lag.events, 100);
  EXPECT_GT(lag.p50_seconds, 0.25);
  EXPECT_LE(lag.p50_seconds, 0.5);
  EXPECT_GT(lag.p99_seconds, 10);  // the two slow events are the top 2 %
  EXPECT_LE(lag.p99_seconds, 30);
  ASSERT_GE(lag.worst_pods.size(), 2u);
  EXPECT_EQ(lag.worst_pods[0].lag_seconds, 20);
  EXPECT_EQ(lag.worst_pods[0].event_type, "ContainerDied");
  EXPECT_EQ(lag.worst_pods[0].namespace_, "default");
}

TEST(EventLagWindow, WorstPodsAreOneLinePerPodLargestFirstAndBounded) {
  std::vector<RelistRecord> timeline;
  // The same crash-looping pod in many relists, growing lag: one line, its worst.
  for (int i = 1; i <= 5; ++i) timeline.push_back(relist_with_lags({died("loop", i)}));
  for (int i = 0; i < 20; ++i) timeline.push_back(relist_with_lags({died("p" + std::to_string(i), 0.1 * i)}));
  Report::EventLag lag = event_lag_over(timeline);
  ASSERT_EQ(lag.worst_pods.size(), kWorstLagPods);
  EXPECT_EQ(lag.worst_pods[0].uid, "loop");
  EXPECT_EQ(lag.worst_pods[0].lag_seconds, 5);
  int loops = 0;
  for (size_t i = 0; i < lag.worst_pods.size(); ++i) {
    loops += lag.worst_pods[i].uid == "loop";
    if (i > 0) {
      EXPECT_GE(lag.worst_pods[i - 1].lag_seconds, lag.worst_pods[i].lag_seconds);
    }
  }
  EXPECT_EQ(loops, 1);
}

TEST(EventLagWindow, InProgressLeftOutInvalidCountedApartNothingMeasuredIsZero) {
  EXPECT_EQ(event_lag_over({}).events, 0);
  EXPECT_EQ(event_lag_over({}).p99_seconds, 0);
  RelistRecord running = relist_with_lags({died("x", 100)});
  running.in_progress = true;
  RelistRecord bad = testing::relist();
  bad.lag.add_invalid();
  bad.lag.add_invalid();
  Report::EventLag lag = event_lag_over({running, bad});
  EXPECT_EQ(lag.events, 0);
  EXPECT_EQ(lag.invalid, 2);
  EXPECT_TRUE(lag.worst_pods.empty());
}

TEST(EventLagWindow, DiagnoseReportsItAndTheSummaryNamesItOnlyWhenMaterial) {
  // Steady: every change seen within one 1 s period.
  Builder steady;
  for (auto& r : steady.s.timeline)
    if (!r.initial) r.lag.add(died("s", 0.6));
  Report calm = worded(diagnose(steady.s, DiagnoserThresholds{}));
  EXPECT_EQ(calm.event_lag.events, 20);
  EXPECT_LE(calm.event_lag.p99_seconds, 1.0);
  EXPECT_FALSE(lag_is_material(calm));
  EXPECT_EQ(calm.summary.find("late"), std::string::npos) << calm.summary;

  // Containers that die are seen 14 s late: the summary says so.
  Builder late;
  for (auto& r : late.s.timeline)
    if (!r.initial) r.lag.add(died("d", 14));
  Report harm = worded(diagnose(late.s, DiagnoserThresholds{}));
  EXPECT_GT(harm.event_lag.p99_seconds, 10);
  EXPECT_TRUE(lag_is_material(harm));
  EXPECT_NE(harm.summary.find("Containers that die are seen "), std::string::npos) << harm.summary;
  EXPECT_NE(harm.summary.find("late (p99 over 20 events"), std::string::npos) << harm.summary;

  // Too few events to call it: nothing said.
  Builder few;
  few.s.timeline.back().lag.add(died("f", 14));
  Report one = worded(diagnose(few.s, DiagnoserThresholds{}));
  EXPECT_FALSE(lag_is_material(one));
  EXPECT_EQ(one.summary.find("seen"), std::string::npos) << one.summary;
}

// Evented mode: the stream's delivery and cache-update lag are
// reported apart from the relists' lag, as figures over the node's window;
// the summary names them only when events arrive a second or more late.
TEST(EventLagWindow, EventedLagIsReportedApartAndNamedWhenEventsArriveLate) {
  Builder evented;
  evented.s.evented_mode = true;
  for (int i = 0; i < 10; ++i) {
    evented.s.evented_lag.delivery.add(died("e" + std::to_string(i), 0.004));
    evented.s.evented_lag.cache_update.add(died("e" + std::to_string(i), 0.006));
  }
  evented.s.evented_lag.delivery.add_invalid();
  Report fast = worded(diagnose(evented.s, DiagnoserThresholds{}));
  EXPECT_EQ(fast.event_lag.events, 0) << "no relist saw these: the relists' lag is apart";
  EXPECT_EQ(fast.event_lag.evented.delivery.count, 10);
  EXPECT_EQ(fast.event_lag.evented.delivery.invalid, 1);
  EXPECT_LE(fast.event_lag.evented.delivery.p99_seconds, 0.01);
  EXPECT_GE(fast.event_lag.evented.cache_update.p50_seconds, fast.event_lag.evented.delivery.p50_seconds);
  EXPECT_FALSE(evented_lag_is_material(fast));
  EXPECT_EQ(fast.summary.find("late"), std::string::npos) << fast.summary;
  ASSERT_TRUE(evented_lag_text(fast));
  EXPECT_NE(evented_lag_text(fast)->find("delivery p50"), std::string::npos) << *evented_lag_text(fast);

  // A stream that delivers events seconds after the runtime made them.
  Builder late;
  late.s.evented_mode = true;
  for (int i = 0; i < 10; ++i) late.s.evented_lag.delivery.add(died("l" + std::to_string(i), 4));
  Report harm = worded(diagnose(late.s, DiagnoserThresholds{}));
  EXPECT_TRUE(evented_lag_is_material(harm));
  EXPECT_NE(harm.summary.find("Runtime events arrive "), std::string::npos) << harm.summary;
  EXPECT_NE(harm.summary.find("late (p99 over 10 events"), std::string::npos) << harm.summary;
  const std::string text = render_text(harm);
  EXPECT_NE(text.find("evented: delivery p50"), std::string::npos) << text;
  EXPECT_NE(text.find("runtime events arrive"), std::string::npos) << text;
  const std::string html = render_html(harm);
  EXPECT_NE(html.find("<tr id=\"evented-lag\"><td colspan=\"2\" class=\"over\">evented: delivery"), std::string::npos);

  // Generic mode with nothing from a stream: figures at 0, no line.
  Builder generic;
  Report plain = worded(diagnose(generic.s, DiagnoserThresholds{}));
  EXPECT_EQ(plain.event_lag.evented.delivery.count, 0);
  EXPECT_FALSE(evented_lag_text(plain));
}

}  // namespace
}  // namespace plegscope
