#pragma once
// Histograms read back from an exposition, and the quantile PromQL's
// histogram_quantile would give from their buckets.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prom_text/count_above.h"
#include "prom_text/histogram_value.h"
#include "prom_text/prom_text.h"

namespace plegscope {

// The family's histogram series grouped by one label's value (missing label:
// ""); by_label empty puts every series in one group "". With then_label,
// by two: "<by_label's value>/<then_label's value>".
std::map<std::string, Histogram> histograms_by(const PromFamily& family, std::string_view by_label,
                                               std::string_view then_label = {});

// The family's only (or first) series; nullopt when the family is null or holds none.
std::optional<Histogram> single_histogram(const PromFamily* family);

// now - before, bucket by bucket; nullopt when the bounds differ or any count
// went down (the process restarted between the two).
std::optional<Histogram> histogram_delta(const Histogram& now, const Histogram& before);

// Linear interpolation inside the bucket that holds rank q*count, as
// histogram_quantile; a quantile in the +Inf bucket is the highest finite
// bound. nullopt when there are no observations.
std::optional<double> bucket_quantile(double q, const Histogram& histogram);

}  // namespace plegscope
