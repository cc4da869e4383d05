#pragma once
// Small helpers for metric families built at scrape time (Collectable).
#include <prometheus/metric_family.h>

#include <string>
#include <utility>
#include <vector>

namespace plegscope {

inline prometheus::MetricFamily gauge_family(std::string name, std::string help) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = prometheus::MetricType::Gauge;
  return family;
}

inline void add_gauge(prometheus::MetricFamily& family,
                      std::vector<prometheus::ClientMetric::Label> labels, double value) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  family.metric.push_back(std::move(metric));
}

}  // namespace plegscope
