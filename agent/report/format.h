#pragma once
// Numbers, durations, sizes and times for people and for the JSON: the one
// formatting module, shared by the diagnoser's sentences and every renderer.
// (The kubelet's own Go-style durations, "3m5.2s", are collectors/common's
// format_go_duration: its sentence must match the kubelet's byte for byte.)
#include <cstdint>
#include <optional>
#include <string>

#include "common/clock.h"

namespace plegscope {
namespace text {

// printf of one double: fmt("%.1f", 2.25) == "2.2".
std::string fmt(const char* format, double v);
// Integers as integers, then fewer decimals the larger the value.
std::string number(double v);
// "800µs", "250ms", "1.5s", "42s", "3m4s", "1h2m".
std::string elapsed(double seconds);
// "512 B", "12 KiB", "15.5 MiB", "16 MiB".
std::string bytes(double bytes);
// "1 relist", "3 relists": a count and its noun, singular or plural.
std::string count(long n, const std::string& singular, const std::string& plural);

}  // namespace text

// RFC 3339 in UTC with milliseconds: "2026-11-22T05:00:00.123Z".
std::string rfc3339(TimePoint t);
// CRI timestamps are nanoseconds since the epoch; 0 means "not set" ("").
std::string rfc3339_from_nanos(int64_t nanos);
// Parses what rfc3339() writes (fraction optional, "Z" or none); nullopt otherwise.
std::optional<TimePoint> parse_rfc3339(const std::string& text);

}  // namespace plegscope
