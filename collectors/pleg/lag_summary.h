#pragma once
// The quantile of the event lag's summed buckets (lag_buckets.h holds the
// summary itself), as histogram_quantile: the one definition, which the
// diagnoser takes over its own windows too.
#include <array>
#include <optional>

#include "pleg/lag_buckets.h"

namespace plegscope {

// The q-quantile (0..1) over summed bucket counts, linear inside a bucket as
// histogram_quantile is; the last bucket has no upper bound and answers its
// lower one. nullopt when there is no sample.
std::optional<double> lag_quantile(const std::array<uint32_t, kLagBuckets.size() + 1>& buckets,
                                   double q);

}  // namespace plegscope
