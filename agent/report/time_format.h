#pragma once
#include <ctime>
#include <string>

#include "common/clock.h"

namespace plegscope {

// RFC 3339 in UTC with milliseconds: "2026-11-22T05:00:00.123Z".
inline std::string rfc3339(TimePoint t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

// CRI timestamps are nanoseconds since the epoch; 0 means "not set".
inline std::string rfc3339_from_nanos(int64_t nanos) {
  if (nanos <= 0) return "";
  return rfc3339(TimePoint(std::chrono::duration_cast<WallClock::duration>(Duration(nanos))));
}

}  // namespace plegscope
