// NRI's figures over scrapes: the cut-off's age from the scrape that saw the
// timeouts grow, and the calls that ended after it.
#include "runtime_metrics/nri_call_tracker.h"

#include <gtest/gtest.h>

#include <limits>

namespace plegscope {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

// Cumulative: `fast` calls under 0.5 s, `slow` ones in (1 s, 2.5 s].
Histogram calls(double fast, double slow) {
  return {fast + slow, fast * 0.01 + slow * 2.0,
          {{0.5, fast}, {1, fast}, {2.5, fast + slow}, {std::numeric_limits<double>::infinity(), fast + slow}}};
}

RuntimeMetricsSample page(double fast, double slow, double timeouts) {
  RuntimeMetricsSample s;
  const std::string key = nri_call_key("10-stall", "CreateContainer");
  s.nri_latency[key] = calls(fast, slow);
  s.nri_timeouts[key] = timeouts;
  return s;
}

TEST(NriCallTracker, TheCallsAfterTheLastCutOffAreCountedApart) {
  NriCallTracker tracker(minutes(5));
  const MonoTime t0{};
  tracker.observe(page(10, 0, 0), t0);
  tracker.observe(page(10, 2, 2), t0 + seconds(10));  // two creations cut off at 2 s
  auto n = tracker.calls(t0 + seconds(10));
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].plugin, "10-stall");
  EXPECT_EQ(n[0].timeouts, 2);
  ASSERT_TRUE(n[0].seconds_since_timeout);
  EXPECT_EQ(*n[0].seconds_since_timeout, 0);
  ASSERT_TRUE(n[0].since_timeout);
  EXPECT_EQ(n[0].since_timeout->count, 0) << "nothing ended after the cut-off yet";

  tracker.observe(page(13, 2, 2), t0 + seconds(20));  // it reconnected: three fast calls
  n = tracker.calls(t0 + seconds(20));
  EXPECT_EQ(*n[0].seconds_since_timeout, 10);
  EXPECT_EQ(n[0].since_timeout->count, 3);
  EXPECT_EQ(n[0].since_timeout->buckets.front().second, 3) << "all three under 0.5 s";

  tracker.observe(page(13, 3, 3), t0 + seconds(30));  // cut off again: counted from there
  n = tracker.calls(t0 + seconds(30));
  EXPECT_EQ(*n[0].seconds_since_timeout, 0);
  EXPECT_EQ(n[0].since_timeout->count, 0);
}

TEST(NriCallTracker, TimeoutsOnTheFirstPageAreHistoryOfUnknownAge) {
  NriCallTracker tracker(minutes(5));
  const MonoTime t0{};
  tracker.observe(page(10, 2, 2), t0);
  tracker.observe(page(12, 2, 2), t0 + seconds(10));
  auto n = tracker.calls(t0 + seconds(10));
  ASSERT_EQ(n.size(), 1u);
  EXPECT_FALSE(n[0].seconds_since_timeout);
  EXPECT_FALSE(n[0].since_timeout);
}

TEST(NriCallTracker, ARestartedRuntimeCountsItsNewCallsAsAfterTheCutOff) {
  NriCallTracker tracker(minutes(5));
  const MonoTime t0{};
  tracker.observe(page(10, 0, 0), t0);
  tracker.observe(page(10, 1, 1), t0 + seconds(10));
  tracker.observe(page(2, 0, 0), t0 + seconds(20));  // counters went down: a new runtime
  auto n = tracker.calls(t0 + seconds(20));
  ASSERT_EQ(n.size(), 1u);
  ASSERT_TRUE(n[0].since_timeout);
  EXPECT_EQ(n[0].since_timeout->count, 2);
}

}  // namespace
}  // namespace plegscope
