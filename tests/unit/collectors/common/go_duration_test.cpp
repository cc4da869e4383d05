#include "common/go_duration.h"

#include <gtest/gtest.h>

namespace plegscope {
namespace {

using namespace std::chrono;

TEST(ParseGoDuration, AcceptsGoSyntax) {
  EXPECT_EQ(parse_go_duration("1s"), Duration(seconds(1)));
  EXPECT_EQ(parse_go_duration("500ms"), Duration(milliseconds(500)));
  EXPECT_EQ(parse_go_duration("3m"), Duration(minutes(3)));
  EXPECT_EQ(parse_go_duration("1h30m"), Duration(minutes(90)));
  EXPECT_EQ(parse_go_duration("1.5h"), Duration(minutes(90)));
  EXPECT_EQ(parse_go_duration("2h45m10.5s"), Duration(hours(2) + minutes(45) + milliseconds(10500)));
  EXPECT_EQ(parse_go_duration("10us"), Duration(microseconds(10)));
  EXPECT_EQ(parse_go_duration("10\xC2\xB5s"), Duration(microseconds(10)));
  EXPECT_EQ(parse_go_duration("7ns"), Duration(7));
  EXPECT_EQ(parse_go_duration("0"), Duration(0));
  EXPECT_EQ(parse_go_duration("-1.5s"), Duration(milliseconds(-1500)));
  EXPECT_EQ(parse_go_duration(".5s"), Duration(milliseconds(500)));
}

TEST(ParseGoDuration, RejectsWhatGoRejects) {
  for (const char* bad : {"", "banana", "1", "1x", "s", "1.s.", "5sec", "1m-", "--1s", "1 s", "."})
    EXPECT_FALSE(parse_go_duration(bad).has_value()) << bad;
}

TEST(FormatGoDuration, MatchesGoString) {
  EXPECT_EQ(format_go_duration(Duration(0)), "0s");
  EXPECT_EQ(format_go_duration(seconds(180)), "3m0s");
  EXPECT_EQ(format_go_duration(milliseconds(185200)), "3m5.2s");
  EXPECT_EQ(format_go_duration(hours(1)), "1h0m0s");
  EXPECT_EQ(format_go_duration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(format_go_duration(milliseconds(250)), "250ms");
  EXPECT_EQ(format_go_duration(microseconds(1500)), "1.5ms");
  EXPECT_EQ(format_go_duration(microseconds(3)), "3\xC2\xB5s");
  EXPECT_EQ(format_go_duration(Duration(42)), "42ns");
  EXPECT_EQ(format_go_duration(Duration(185'234'567'891)), "3m5.234567891s");
  EXPECT_EQ(format_go_duration(seconds(-90)), "-1m30s");
  EXPECT_EQ(format_go_duration(hours(26) + seconds(3)), "26h0m3s");
}

TEST(GoDuration, RoundTrips) {
  for (const char* text : {"3m5.2s", "1h0m0s", "250ms", "1.5ms", "42ns", "10s"})
    EXPECT_EQ(format_go_duration(*parse_go_duration(text)), text);
}

}  // namespace
}  // namespace plegscope
