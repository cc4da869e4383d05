#include "report/format.h"

#include <cmath>
#include <cstdio>

namespace plegscope::text {

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

std::string duration(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  if (s > 0 && s < 0.001) return fmt("%.0fµs", s * 1e6);
  if (s < 1) return fmt("%.0fms", s * 1000);
  if (s < 10) return std::fabs(s - std::round(s)) < 0.05 ? fmt("%.0fs", s) : fmt("%.1fs", s);
  if (s < 60) return fmt("%.0fs", s);
  long t = std::lround(s);
  char buf[48];
  if (t < 3600) std::snprintf(buf, sizeof(buf), "%ldm%lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof(buf), "%ldh%ldm", t / 3600, (t % 3600) / 60);
  return buf;
}

std::string bytes(double b) {
  constexpr double kMiB = 1024.0 * 1024;
  if (b >= kMiB) return std::fmod(b, kMiB) == 0 ? fmt("%.0f MiB", b / kMiB) : fmt("%.1f MiB", b / kMiB);
  if (b >= 1024) return fmt("%.0f KiB", b / 1024);
  return fmt("%.0f B", b);
}

std::string count(long n, const std::string& singular, const std::string& plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

}  // namespace plegscope::text
