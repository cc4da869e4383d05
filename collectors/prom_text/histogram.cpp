#include "prom_text/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace plegscope {
namespace {

// The le label as written; NaN is no bound.
std::optional<double> parse_le(std::string_view text) {
  auto v = parse_prom_value(text);
  if (!v || std::isnan(*v)) return std::nullopt;
  return v;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::map<std::string, Histogram> histograms_by(const PromFamily& family, std::string_view by_label,
                                               std::string_view then_label) {
  std::map<std::string, Histogram> out;
  for (const auto& sample : family.samples) {
    std::string key;
    if (!by_label.empty()) {
      if (auto v = sample.label(by_label)) key = *v;
    }
    if (!then_label.empty()) {
      key += '/';
      if (auto v = sample.label(then_label)) key += *v;
    }
    if (ends_with(sample.name, "_bucket")) {
      auto le = sample.label("le");
      if (!le) continue;
      auto bound = parse_le(*le);
      if (!bound) continue;
      out[key].buckets.emplace_back(*bound, sample.value);
    } else if (ends_with(sample.name, "_sum")) {
      out[key].sum = sample.value;
    } else if (ends_with(sample.name, "_count")) {
      out[key].count = sample.value;
    }
  }
  for (auto& [key, h] : out) {
    std::stable_sort(h.buckets.begin(), h.buckets.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return out;
}

std::optional<double> count_above(const Histogram& h, double bound) {
  // The largest bucket bound at or below `bound`: what lies above it is known
  // to be slower than that bound, and no finer.
  const std::pair<double, double>* at = nullptr;
  for (const auto& b : h.buckets)
    if (b.first <= bound) at = &b;
  if (!at) return std::nullopt;
  return h.count > at->second ? h.count - at->second : 0;
}

std::optional<Histogram> single_histogram(const PromFamily* family) {
  if (!family) return std::nullopt;
  auto all = histograms_by(*family, "");
  if (all.empty()) return std::nullopt;
  return all.begin()->second;
}

std::optional<Histogram> histogram_delta(const Histogram& now, const Histogram& before) {
  if (now.buckets.size() != before.buckets.size() || now.count < before.count) return std::nullopt;
  Histogram d;
  d.count = now.count - before.count;
  d.sum = now.sum - before.sum;
  d.buckets.reserve(now.buckets.size());
  for (size_t k = 0; k < now.buckets.size(); ++k) {
    if (now.buckets[k].first != before.buckets[k].first) return std::nullopt;
    double diff = now.buckets[k].second - before.buckets[k].second;
    if (diff < 0) return std::nullopt;
    d.buckets.emplace_back(now.buckets[k].first, diff);
  }
  return d;
}

std::optional<double> bucket_quantile(double q, const Histogram& h) {
  if (h.buckets.empty() || !(q >= 0 && q <= 1)) return std::nullopt;
  double total = h.buckets.back().second;
  if (!(total > 0)) return std::nullopt;
  double rank = q * total;
  double prev_bound = 0, prev_count = 0;
  for (size_t k = 0; k < h.buckets.size(); ++k) {
    auto [bound, count] = h.buckets[k];
    if (count >= rank) {
      if (std::isinf(bound)) {
        // Beyond the last finite bound: that bound is all that is known.
        return k > 0 ? h.buckets[k - 1].first : std::optional<double>{};
      }
      double in_bucket = count - prev_count;
      if (in_bucket <= 0) return bound;
      return prev_bound + (bound - prev_bound) * (rank - prev_count) / in_bucket;
    }
    prev_bound = bound;
    prev_count = count;
  }
  return h.buckets.back().first;
}

}  // namespace plegscope
