#pragma once
// How much of the per-operation and per-event latency detail /metrics
// carries. Lean (the default) keeps what the shipped alerts, recording rules
// and dashboards read: the relist path's operations, with buckets placed at
// the thresholds they compare against. Full keeps every operation, with the
// fine buckets, for a node under investigation.
#include <string_view>

namespace plegscope {

enum class MetricDetail { kLean, kFull };

inline const char* metric_detail_name(MetricDetail d) { return d == MetricDetail::kFull ? "full" : "lean"; }

// False when `text` is neither name.
inline bool parse_metric_detail(std::string_view text, MetricDetail& out) {
  if (text == "lean") out = MetricDetail::kLean;
  else if (text == "full") out = MetricDetail::kFull;
  else return false;
  return true;
}

}  // namespace plegscope
