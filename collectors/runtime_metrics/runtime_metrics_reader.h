#pragma once
// The runtime's own metrics page (containerd's [metrics] address, CRI-O's
// enable_metrics), as a source: scraped every scrape_interval on the
// waiting lane, bounded by its timeouts. A failed scrape is evidence
// (reachable false), never fatal.
#include <mutex>
#include <optional>

#include "common/source.h"
#include "runtime_metrics/runtime_metrics.h"
#include "runtime_metrics/nri_call_tracker.h"
#include "runtime_metrics/runtime_metrics_evidence.h"
#include "scrape/scrape_loop.h"

namespace plegscope {

struct RuntimeMetricsOptions {
  std::string endpoint;  // the whole URL, "http://127.0.0.1:1338/v1/metrics"; "" turns it off
  Duration scrape_interval = std::chrono::seconds(5);
};
// --runtime-metrics-endpoint (runtime_metrics_flags.cpp).
void add_flags(CLI::App& app, RuntimeMetricsOptions& options);

// Thread-safe.
class RuntimeMetricsReader final : public SourceOf<RuntimeMetricsEvidence> {
 public:
  using Options = RuntimeMetricsOptions;
  RuntimeMetricsReader(const RuntimeMetricsOptions& options, const Clock& clock);
  RuntimeMetricsReader(const Options& options, const SourceContext& context)
      : RuntimeMetricsReader(options, context.clock) {}

  std::string_view name() const override { return "runtime_metrics"; }
  bool enabled() const override { return scraper_.has_value(); }
  void start(SourceLanes lanes) override;
  RuntimeMetricsEvidence evidence() const override;
  // pleg_runtime_metrics_up, while the reader is on.
  std::vector<prometheus::MetricFamily> Collect() const override;

  void scrape_now();  // one scrape on the calling thread (tests)

 private:
  void observe_nri(const RuntimeMetricsSample& sample, MonoTime now);  // under mu_
  const Clock& clock_;
  std::optional<RuntimeMetricsScraper> scraper_;
  const Duration interval_;
  mutable std::mutex mu_;
  RuntimeMetricsEvidence evidence_;  // all but in_flight
  bool logged_once_ = false;
  RuntimeMetricsState state_;
  HistogramWindow network_;  // network setup/teardown histograms
  // NRI plugins' calls: a window long enough that a plugin cut off at its
  // 2 s timeout stays named for a while after, as the CRI calls' own are.
  static constexpr Duration kNriWindow = std::chrono::minutes(5);
  NriCallTracker nri_{kNriWindow};
};

}  // namespace plegscope
