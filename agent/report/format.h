#pragma once
// Numbers, durations and sizes for people: the one formatting module, shared
// by the diagnoser's sentences and every renderer.
#include <string>

namespace plegscope::text {

// printf of one double: fmt("%.1f", 2.25) == "2.2".
std::string fmt(const char* format, double v);
// Integers as integers, then fewer decimals the larger the value.
std::string number(double v);
// "800µs", "250ms", "1.5s", "42s", "3m4s", "1h2m".
std::string duration(double seconds);
// "512 B", "12 KiB", "15.5 MiB", "16 MiB".
std::string bytes(double bytes);
// "1 relist", "3 relists": a count and its noun, singular or plural.
std::string count(long n, const std::string& singular, const std::string& plural);

}  // namespace plegscope::text
