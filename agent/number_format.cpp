#include "number_format.h"

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

}  // namespace plegscope::text
