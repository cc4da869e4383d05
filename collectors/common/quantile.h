#pragma once
// The one quantile definition of the project (linear interpolation between
// the closest ranks, as numpy's default), used by the tracker and the diagnoser.
#include <algorithm>
#include <cmath>
#include <vector>

namespace plegscope {

inline double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double pos = q * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace plegscope
