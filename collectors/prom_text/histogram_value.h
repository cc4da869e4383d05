#pragma once
// One histogram's value as an exposition gives it: count, sum, cumulative buckets.
#include <utility>
#include <vector>

namespace plegscope {

struct Histogram {
  double count = 0;
  double sum = 0;
  // (upper bound "le", cumulative count), ascending; +Inf last when present.
  std::vector<std::pair<double, double>> buckets;
};

}  // namespace plegscope
