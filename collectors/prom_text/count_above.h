#pragma once
// How many of a histogram's observations lie above a bound, as far as its buckets tell.
// Defined in histogram.cpp; the diagnoser counts with its own thresholds.
#include <optional>

#include "prom_text/histogram_value.h"

namespace plegscope {

// Observations above the largest bucket bound at or below `bound` (the
// histogram cannot tell finer); nullopt when no bucket bound is that low.
std::optional<double> count_above(const Histogram& histogram, double bound);

}  // namespace plegscope
