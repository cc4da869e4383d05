#include "report/format.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace plegscope {
namespace text {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt("%.0f", v);
  if (std::fabs(v) >= 100) return fmt("%.1f", v);
  if (std::fabs(v) >= 1) return fmt("%.2f", v);
  return fmt("%.3g", v);
}

std::string elapsed(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  if (s > 0 && s < 0.001) return fmt("%.0fµs", s * 1e6);
  if (s < 1) return fmt("%.0fms", s * 1000);
  if (s < 10) return std::fabs(s - std::round(s)) < 0.05 ? fmt("%.0fs", s) : fmt("%.1fs", s);
  if (s < 60) return fmt("%.0fs", s);
  long t = std::lround(s);
  char buf[48];
  if (t < 3600)
    std::snprintf(buf, sizeof(buf), "%ldm%lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof(buf), "%ldh%ldm", t / 3600, (t % 3600) / 60);
  return buf;
}

std::string bytes(double b) {
  constexpr double kMiB = 1024.0 * 1024;
  if (b >= kMiB)
    return std::fmod(b, kMiB) == 0 ? fmt("%.0f MiB", b / kMiB) : fmt("%.1f MiB", b / kMiB);
  if (b >= 1024) return fmt("%.0f KiB", b / 1024);
  return fmt("%.0f B", b);
}

std::string count(long n, const std::string& singular, const std::string& plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace text

std::string rfc3339(TimePoint t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  auto secs = static_cast<std::time_t>(ms / 1000);
  int millis = static_cast<int>(ms % 1000);
  if (millis < 0) {  // before the epoch: floor, not truncate
    millis += 1000;
    secs -= 1;
  }
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char date[40];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03dZ", date, millis);
  return out;
}

std::string rfc3339_from_nanos(int64_t nanos) {
  if (nanos <= 0) return "";
  return rfc3339(
      TimePoint(std::chrono::duration_cast<WallClock::duration>(std::chrono::nanoseconds(nanos))));
}

std::optional<TimePoint> parse_rfc3339(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return std::nullopt;
  int ms = 0;
  if (text[consumed] == '.') {
    char frac[16] = {};
    if (std::sscanf(text.c_str() + consumed + 1, "%9[0-9]", frac) != 1) return std::nullopt;
    ms = std::stoi((std::string(frac) + "00").substr(0, 3));
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::time_t secs = timegm(&tm);
  if (secs == static_cast<std::time_t>(-1)) return std::nullopt;
  // A TimePoint counts nanoseconds in 64 bits: years past 2262 do not fit
  // (found by fuzz_report_json).
  constexpr std::time_t kLatest =
      std::chrono::duration_cast<std::chrono::seconds>(TimePoint::duration::max()).count() - 1;
  if (secs < 0 || secs > kLatest) return std::nullopt;
  return TimePoint(std::chrono::seconds(secs)) + std::chrono::milliseconds(ms);
}

}  // namespace plegscope
