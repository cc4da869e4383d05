#include "prom_text/prom_text.h"

#include <gtest/gtest.h>

#include <cmath>

#include "prom_text/histogram.h"

namespace plegscope {
namespace {

TEST(PromText, ReadsOnlyWantedFamiliesWithHelpTypeAndSuffixes) {
  std::string text =
      "# HELP a_seconds [ALPHA] Time \\\\ spent\\nhere.\n"
      "# TYPE a_seconds histogram\n"
      "a_seconds_bucket{le=\"0.5\"} 3\n"
      "a_seconds_bucket{le=\"+Inf\"} 4\n"
      "a_seconds_sum 1.5\n"
      "a_seconds_count 4\n"
      "# TYPE other gauge\n"
      "other{x=\"this is not parsed { at all\"} 1\n"
      "b_events_total 7\n";
  auto r = parse_prom_text(text, {"a_seconds", "b_events"});
  EXPECT_EQ(r.malformed_lines, 0u) << r.first_error;
  ASSERT_NE(r.family("a_seconds"), nullptr);
  const auto& a = *r.family("a_seconds");
  EXPECT_EQ(a.type, PromType::histogram);
  EXPECT_EQ(a.help, "[ALPHA] Time \\ spent\nhere.");
  ASSERT_EQ(a.samples.size(), 4u);
  EXPECT_EQ(*a.samples[1].label("le"), "+Inf");
  ASSERT_NE(r.family("b_events"), nullptr);
  EXPECT_EQ(r.family("b_events")->samples[0].value, 7);
  EXPECT_EQ(r.family("other"), nullptr);
}

TEST(PromText, ExactNameWinsOverSuffix) {
  // CRI-O's summary is named ..._total; its _sum must not land in a family
  // named without the _total.
  auto r = parse_prom_text("x_total_sum 2\nx_total 3\n", {"x", "x_total"});
  ASSERT_NE(r.family("x_total"), nullptr);
  EXPECT_EQ(r.family("x_total")->samples.size(), 2u);
  EXPECT_EQ(r.family("x"), nullptr);
}

TEST(PromText, LabelEscapesSpecialValuesAndTimestamps) {
  std::string text =
      "m{a=\"q\\\"uote\",b=\"back\\\\slash\",c=\"new\\nline\",} +Inf 1700000000000\n"
      "m{a=\"n\"} NaN\n"
      "m{a=\"neg\"} -Inf\n"
      "m { a = \"spaced\" } 1e-3 -5\n"
      "m 1.5e+06\n";
  auto r = parse_prom_text(text, {"m"});
  EXPECT_EQ(r.malformed_lines, 0u) << r.first_error;
  const auto& s = r.family("m")->samples;
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(*s[0].label("a"), "q\"uote");
  EXPECT_EQ(*s[0].label("b"), "back\\slash");
  EXPECT_EQ(*s[0].label("c"), "new\nline");
  EXPECT_TRUE(std::isinf(s[0].value) && s[0].value > 0);
  EXPECT_EQ(s[0].timestamp_ms, 1700000000000);
  EXPECT_TRUE(std::isnan(s[1].value));
  EXPECT_TRUE(std::isinf(s[2].value) && s[2].value < 0);
  EXPECT_EQ(*s[3].label("a"), "spaced");
  EXPECT_DOUBLE_EQ(s[3].value, 0.001);
  EXPECT_EQ(s[3].timestamp_ms, -5);
  EXPECT_DOUBLE_EQ(s[4].value, 1.5e6);
}

TEST(PromText, MalformedWantedLinesAreCountedAndSkipped) {
  std::string text =
      "m{a=\"unterminated} 1\n"
      "m{a=\"x\"} notanumber\n"
      "m{a=\"x\"} 1 2 3\n"
      "m{a=\"x\",a=\"y\"} 1\n"
      "m{a=\"bad\\q\"} 1\n"
      "m 4\n"
      "\xff\xfe garbage\n";
  auto r = parse_prom_text(text, {"m"});
  EXPECT_EQ(r.malformed_lines, 6u);
  EXPECT_EQ(r.first_error.rfind("line 1: ", 0), 0u) << r.first_error;
  ASSERT_NE(r.family("m"), nullptr);
  ASSERT_EQ(r.family("m")->samples.size(), 1u);
  EXPECT_EQ(r.family("m")->samples[0].value, 4);
}

TEST(PromText, GarbageGivesNoFamiliesAndAnError) {
  static const char page[] = "<html>\0\x01 not metrics</html>\r\n{}{}\n";
  auto r = parse_prom_text(std::string(page, sizeof page - 1), {"m"});
  EXPECT_TRUE(r.families.empty());
  EXPECT_GT(r.malformed_lines, 0u);
  EXPECT_FALSE(r.first_error.empty());
}

TEST(PromText, CrLfAndMissingFinalNewline) {
  auto r = parse_prom_text("m 1\r\nm 2", {"m"});
  EXPECT_EQ(r.malformed_lines, 0u) << r.first_error;
  ASSERT_EQ(r.family("m")->samples.size(), 2u);
  EXPECT_EQ(r.family("m")->samples[1].value, 2);
}

TEST(PromText, LabelsAreViewsIntoThePageUnlessEscaped) {
  std::string text =
      "m{plain=\"abc\",esc=\"a\\\\b\\\"c\\nd\",empty=\"\"} 1\n"
      "m{q=\"\\\"\"} 2\n";
  auto r = parse_prom_text(text, {"m"});
  EXPECT_EQ(r.malformed_lines, 0u) << r.first_error;
  const auto& s = r.family("m")->samples;
  ASSERT_EQ(s.size(), 2u);
  ASSERT_EQ(s[0].label_count, 3u);
  EXPECT_EQ(s[0].labels[0].name, "plain");
  EXPECT_EQ(s[0].labels[1].name, "esc");
  EXPECT_EQ(s[0].labels[2].name, "empty");
  const char* page_begin = text.data();
  const char* page_end = text.data() + text.size();
  auto in_page = [&](std::string_view v) { return v.data() >= page_begin && v.data() + v.size() <= page_end; };
  // Plain values, label names and sample names are the page's own bytes.
  EXPECT_TRUE(in_page(*s[0].label("plain")));
  EXPECT_TRUE(in_page(s[0].labels[1].name));
  EXPECT_TRUE(in_page(s[0].name));
  // An escaped value is an unescaped copy held by the result.
  EXPECT_EQ(*s[0].label("esc"), "a\\b\"c\nd");
  EXPECT_FALSE(in_page(*s[0].label("esc")));
  EXPECT_EQ(*s[0].label("empty"), "");
  EXPECT_FALSE(s[0].label("absent"));
  EXPECT_EQ(*s[1].label("q"), "\"");
  EXPECT_EQ(r.unescaped_values.size(), 2u);
  // Moving the result keeps every view valid (the samples point into its stores).
  PromParseResult moved = std::move(r);
  EXPECT_EQ(*moved.family("m")->samples[0].label("esc"), "a\\b\"c\nd");
  EXPECT_EQ(*moved.family("m")->samples[1].label("q"), "\"");
}

TEST(PromText, AnEscapedQuoteDoesNotCloseTheValue) {
  // The first quote of the value is escaped: a reader that stopped there
  // would see a label "x" and then garbage.
  auto r = parse_prom_text("m{a=\"x\\\",b=\\\"y\",c=\"z\"} 3\n", {"m"});
  EXPECT_EQ(r.malformed_lines, 0u) << r.first_error;
  const auto& s = r.family("m")->samples;
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(s[0].label_count, 2u);
  EXPECT_EQ(*s[0].label("a"), "x\",b=\"y");
  EXPECT_EQ(*s[0].label("c"), "z");
  EXPECT_EQ(s[0].value, 3);
}

TEST(PromText, ValuesOfEveryLengthWithAnEscapeAnywhere) {
  // Values are scanned many bytes at a time: an end or escape at any offset,
  // in a line that ends right after the value or goes on.
  for (size_t len = 0; len < 40; ++len) {
    for (size_t at = 0; at <= len; ++at) {
      std::string want(len, 'v');
      std::string written = want;
      if (at < len) {
        want[at] = '"';
        written = want.substr(0, at) + "\\\"" + want.substr(at + 1);
      }
      std::string text = "m{a=\"" + written + "\"} 1\nm{a=\"" + written;
      auto r = parse_prom_text(text, {"m"});
      ASSERT_EQ(r.family("m")->samples.size(), 1u) << len << " " << at;
      EXPECT_EQ(*r.family("m")->samples[0].label("a"), want) << len << " " << at;
      EXPECT_EQ(r.malformed_lines, 1u);  // the unterminated second line
      EXPECT_EQ(r.first_error, "line 2: unterminated label value");
    }
  }
}

TEST(PromText, ExactAndSuffixFamilyMatching) {
  std::string text =
      "h_bucket{le=\"1\"} 1\n"
      "h_created 5\n"
      "h_total 6\n"
      "h_other 7\n"       // not a suffix the format knows: not h's
      "hx_sum 8\n"        // another family that starts like h
      "h_bucket_sum 9\n"  // a suffix of a suffixed name: not h's
      "c_total_total 10\n"
      "c_total 11\n";
  auto r = parse_prom_text(text, {"h", "c_total"});
  EXPECT_EQ(r.malformed_lines, 0u) << r.first_error;
  ASSERT_NE(r.family("h"), nullptr);
  std::vector<std::string_view> names;
  for (const auto& s : r.family("h")->samples) names.push_back(s.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"h_bucket", "h_created", "h_total"}));
  ASSERT_NE(r.family("c_total"), nullptr);
  ASSERT_EQ(r.family("c_total")->samples.size(), 2u);
  EXPECT_EQ(r.family("c_total")->samples[0].name, "c_total_total");
  EXPECT_EQ(r.family("c_total")->samples[1].value, 11);
}

TEST(PromText, AMalformedLineKeepsNoLabelsOfItsOwn) {
  // Each bad line fails after some labels were read (one of them escaped):
  // the good samples around them keep exactly their own labels.
  std::string text =
      "m{a=\"1\"} 1\n"
      "m{a=\"2\",b=\"e\\\\s\",c=} 2\n"
      "m{a=\"3\",b=\"e\\\\s\"} x\n"
      "m{a=\"4\",b=\"e\\\\s\"} 4 5 6\n"
      "m{a=\"5\",b=\"e\\\\s\"} 5 notatime\n"
      "m{a=\"6\",a=\"7\"} 6\n"
      "m{z=\"last\"} 7\n";
  auto r = parse_prom_text(text, {"m"});
  EXPECT_EQ(r.malformed_lines, 5u);
  EXPECT_EQ(r.first_error.rfind("line 2: ", 0), 0u) << r.first_error;
  const auto& s = r.family("m")->samples;
  ASSERT_EQ(s.size(), 2u);
  ASSERT_EQ(s[0].label_count, 1u);
  EXPECT_EQ(*s[0].label("a"), "1");
  ASSERT_EQ(s[1].label_count, 1u);
  EXPECT_EQ(*s[1].label("z"), "last");
  EXPECT_EQ(r.label_store.size(), 2u);
  EXPECT_TRUE(r.unescaped_values.empty());
}

TEST(PromText, ValuesAsGoWritesThem) {
  for (auto [text, want] : std::vector<std::pair<std::string, double>>{
           {"0", 0}, {"12", 12}, {"007", 7}, {"123456789012345", 123456789012345.0},
           {"1234567890123456789", 1234567890123456789.0}, {"-3", -3}, {"+2.5", 2.5},
           {"1e3", 1000}, {"0.0123", 0.0123}, {"1e999", HUGE_VAL}}) {
    auto v = parse_prom_value(text);
    ASSERT_TRUE(v) << text;
    EXPECT_DOUBLE_EQ(*v, want) << text;
  }
  for (std::string bad : {"", "1x", "--1", "+-1", "1 ", "0x", "1,5"}) {
    EXPECT_FALSE(parse_prom_value(bad)) << bad;
  }
  EXPECT_TRUE(std::isnan(*parse_prom_value("NaN")));
  EXPECT_EQ(*parse_prom_value("-Inf"), -HUGE_VAL);
}

TEST(PromText, ASummedFamilysZeroSamplesAreSkippedAndEveryOtherValueKept) {
  std::string text =
      "# TYPE h_total counter\n"
      "h_total{m=\"a\",code=\"OK\"} 0\n"
      "h_total{m=\"a\",code=\"Unknown\"} 10\n"  // ends in 0, not a 0
      "h_total{m=\"b\",code=\"OK\"} 0.5\n"
      "h_total{m=\"b\",code=\"Internal\"} 0 1700000000000\n"  // a timestamp: parsed
      "h_total{m=\"c} 0\",code=\"OK\"} 7\n"  // \"} 0\" inside a value
      "h_total{m=\"c\",code=\"Aborted\"}   0  \r\n"
      "h_total 0\n"  // no labels: parsed
      "g{m=\"a\"} 0\n";  // not summed: kept
  auto r = parse_prom_text(text, {"h_total", "g"}, {"h_total"});
  EXPECT_EQ(r.malformed_lines, 0u) << r.first_error;
  EXPECT_EQ(r.zero_samples_skipped, 2u);
  ASSERT_NE(r.family("h_total"), nullptr);
  double sum = 0;
  for (const auto& sample : r.family("h_total")->samples) sum += sample.value;
  EXPECT_EQ(sum, 17.5);
  EXPECT_EQ(r.family("h_total")->samples.size(), 5u);
  EXPECT_EQ(*r.family("h_total")->samples[3].label("m"), "c} 0");
  ASSERT_NE(r.family("g"), nullptr);
  EXPECT_EQ(r.family("g")->samples.size(), 1u);

  // A family of only zeros is still there, with its type and no samples.
  auto zeros = parse_prom_text("# TYPE z counter\nz{code=\"OK\"} 0\n", {"z"}, {"z"});
  ASSERT_NE(zeros.family("z"), nullptr);
  EXPECT_EQ(zeros.family("z")->type, PromType::counter);
  EXPECT_TRUE(zeros.family("z")->samples.empty());
}

TEST(Histogram, QuantileInterpolatesLikeHistogramQuantile) {
  Histogram h;
  h.buckets = {{0.1, 50}, {1, 100}, {HUGE_VAL, 100}};
  h.count = 100;
  // Rank 99 of 100 falls in (0.1, 1]: 0.1 + 0.9 * (99-50)/50.
  EXPECT_NEAR(*bucket_quantile(0.99, h), 0.1 + 0.9 * 49.0 / 50.0, 1e-9);
  EXPECT_NEAR(*bucket_quantile(0.5, h), 0.1, 1e-9);
  h.buckets = {{0.1, 0}, {1, 0}, {HUGE_VAL, 10}};
  EXPECT_EQ(*bucket_quantile(0.99, h), 1);  // beyond the last bound: the bound
  h.buckets = {{0.1, 0}, {HUGE_VAL, 0}};
  EXPECT_FALSE(bucket_quantile(0.99, h));
}

TEST(Histogram, DeltaRefusesAResetOrOtherBounds) {
  Histogram a, b;
  a.buckets = {{1, 5}, {HUGE_VAL, 6}};
  a.count = 6;
  b.buckets = {{1, 2}, {HUGE_VAL, 2}};
  b.count = 2;
  auto d = histogram_delta(a, b);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->buckets[0].second, 3);
  EXPECT_EQ(d->buckets[1].second, 4);
  EXPECT_FALSE(histogram_delta(b, a));
  b.buckets[0].first = 2;
  EXPECT_FALSE(histogram_delta(a, b));
}

}  // namespace
}  // namespace plegscope
