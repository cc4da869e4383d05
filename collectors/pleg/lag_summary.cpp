#include "pleg/lag_summary.h"

#include <algorithm>

namespace plegscope {
namespace {

// A runtime's timestamp decades in the past is a valid (if absurd) lag; two
// of them must not overflow the sum.
Duration saturating_add(Duration a, Duration b) {
  if (b > Duration::zero() && a > Duration::max() - b) return Duration::max();
  return a + b;
}

}  // namespace

void LagSummary::add(const PodLag& sample) {
  const double seconds = to_seconds(sample.lag);
  size_t i = 0;
  while (i < kLagBuckets.size() && seconds > kLagBuckets[i]) ++i;
  buckets[i]++;
  count++;
  sum = saturating_add(sum, sample.lag);
  max = std::max(max, sample.lag);
  keep_worst(sample);
}

void LagSummary::merge(const LagSummary& other) {
  for (size_t i = 0; i < buckets.size(); ++i) buckets[i] += other.buckets[i];
  count += other.count;
  invalid += other.invalid;
  sum = saturating_add(sum, other.sum);
  max = std::max(max, other.max);
  for (const PodLag& p : other.worst) keep_worst(p);
}

void LagSummary::keep_worst(const PodLag& sample) {
  // One entry per pod, its worst event: a crash-looping pod is one line.
  auto same_pod = std::find_if(worst.begin(), worst.end(), [&](const PodLag& w) { return w.uid == sample.uid; });
  if (same_pod != worst.end()) {
    if (same_pod->lag >= sample.lag) return;
    worst.erase(same_pod);
  } else if (worst.size() == kWorstPods && worst.back().lag >= sample.lag) {
    return;
  }
  auto at = std::find_if(worst.begin(), worst.end(), [&](const PodLag& w) { return w.lag < sample.lag; });
  worst.insert(at, sample);
  if (worst.size() > kWorstPods) worst.pop_back();
}

std::optional<double> lag_quantile(const std::array<uint32_t, kLagBuckets.size() + 1>& buckets,
                                   double q) {
  uint64_t total = 0;
  for (uint32_t n : buckets) total += n;
  if (total == 0) return std::nullopt;
  const double rank = std::clamp(q, 0.0, 1.0) * static_cast<double>(total);
  uint64_t below = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (buckets[i] == 0 || static_cast<double>(below + buckets[i]) < rank) {
      below += buckets[i];
      continue;
    }
    if (i == kLagBuckets.size()) return kLagBuckets.back();
    const double lower = i == 0 ? 0.0 : kLagBuckets[i - 1];
    const double upper = kLagBuckets[i];
    return lower + (upper - lower) * (rank - static_cast<double>(below)) / buckets[i];
  }
  return kLagBuckets.back();
}

}  // namespace plegscope
