// The one formatting module: durations, numbers, sizes and RFC 3339 times.
#include "report/format.h"

#include <gtest/gtest.h>

#include <cmath>

namespace plegscope {
namespace {

TEST(Format, Durations) {
  EXPECT_EQ(text::elapsed(0), "0ms");
  EXPECT_EQ(text::elapsed(0.0008), "800µs");
  EXPECT_EQ(text::elapsed(0.25), "250ms");
  EXPECT_EQ(text::elapsed(1.5), "1.5s");
  EXPECT_EQ(text::elapsed(4.0), "4s");
  EXPECT_EQ(text::elapsed(9.6), "9.6s");
  EXPECT_EQ(text::elapsed(42.4), "42s");
  EXPECT_EQ(text::elapsed(166.5), "2m47s");
  EXPECT_EQ(text::elapsed(3720), "1h2m");
  EXPECT_EQ(text::elapsed(-1), "0ms");
  EXPECT_EQ(text::elapsed(std::nan("")), "0ms");
}

TEST(Format, NumbersBytesCounts) {
  EXPECT_EQ(text::number(3), "3");
  EXPECT_EQ(text::number(2.3456), "2.35");
  EXPECT_EQ(text::number(123.45), "123.5");
  EXPECT_EQ(text::number(0.01234), "0.0123");
  EXPECT_EQ(text::bytes(512), "512 B");
  EXPECT_EQ(text::bytes(12 * 1024), "12 KiB");
  EXPECT_EQ(text::bytes(16 * 1024 * 1024), "16 MiB");
  EXPECT_EQ(text::bytes(15.5 * 1024 * 1024), "15.5 MiB");
  EXPECT_EQ(text::count(1, "relist", "relists"), "1 relist");
  EXPECT_EQ(text::count(3, "relist", "relists"), "3 relists");
}

TEST(Format, Rfc3339BothWays) {
  const TimePoint t =
      TimePoint(std::chrono::seconds(1'790'000'000)) + std::chrono::milliseconds(250);
  EXPECT_EQ(rfc3339(t), "2026-09-21T14:13:20.250Z");
  EXPECT_EQ(parse_rfc3339(rfc3339(t)), t);
  EXPECT_EQ(parse_rfc3339("2026-09-21T14:13:20Z"), t - std::chrono::milliseconds(250));
  EXPECT_EQ(parse_rfc3339("2026-09-21T14:13:20.25Z"), t);
  EXPECT_EQ(parse_rfc3339("2026-09-21T14:13:20.250999999Z"), t);
  EXPECT_FALSE(parse_rfc3339("yesterday"));
  EXPECT_FALSE(parse_rfc3339(""));
  EXPECT_FALSE(parse_rfc3339("2026-09-21T14:13:20.Z"));
  EXPECT_EQ(rfc3339_from_nanos(0), "");
  EXPECT_EQ(rfc3339_from_nanos(1'790'000'000'250'000'000), "2026-09-21T14:13:20.250Z");
}

}  // namespace
}  // namespace plegscope
