#include "runtime_metrics/runtime_metrics_reader.h"

#include "common/metric_family.h"

namespace plegscope {
namespace {

bool is_network_operation(const std::string& name) { return name.find("network") != std::string::npos; }

}  // namespace

RuntimeMetricsReader::RuntimeMetricsReader(const RuntimeMetricsOptions& options, const Clock& clock)
    : clock_(clock), interval_(options.scrape_interval) {
  if (options.endpoint.empty()) return;
  RuntimeMetricsScrapeConfig config;
  config.url = options.endpoint;
  scraper_.emplace(config);
  evidence_.endpoint = options.endpoint;
}

void RuntimeMetricsReader::start(SourceLanes lanes) {
  if (!scraper_) return;
  scraper_->serve_while_waiting(lanes.waiting.served_task());
  lanes.waiting.every(interval_, [this] { scrape_now(); });
}

void RuntimeMetricsReader::scrape_now() {
  if (!scraper_) return;
  RuntimeMetricsScrape scrape = scraper_->scrape();  // bounded by its timeouts, outside the lock
  const MonoTime now = clock_.monotonic();
  std::lock_guard<std::mutex> lock(mu_);
  record_scrape("runtime metrics", evidence_.endpoint, scrape.outcome, logged_once_, evidence_);
  if (!scrape.outcome.ok()) return;
  const RuntimeMetricsSample& sample = scrape.sample;
  state_.observe(sample, now);
  evidence_.kind = runtime_kind_name(sample.kind);
  network_.add(now, sample.network_operations);
  evidence_.network_p99_seconds = network_.recent_p99();
  // CRI-O's summaries are already over a recent window.
  for (const auto& [op, figures] : sample.crio_operations)
    if (is_network_operation(op) && figures.p99) evidence_.network_p99_seconds[op] = *figures.p99;
  evidence_.stopped_monitors = sample.crio_stopped_monitors;
  observe_nri(sample, now);
}

void RuntimeMetricsReader::observe_nri(const RuntimeMetricsSample& sample, MonoTime now) {
  nri_.observe(sample, now);
  evidence_.nri_calls = nri_.calls(now);
  evidence_.nri_active_plugins = sample.nri_active_plugins;
  evidence_.nri_window_seconds = std::chrono::duration<double>(kNriWindow).count();
}

RuntimeMetricsEvidence RuntimeMetricsReader::evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  RuntimeMetricsEvidence out = evidence_;
  if (!out.reachable) return out;  // no figure is current
  for (const RuntimeInFlightCall& call : state_.in_flight(clock_.monotonic()))
    out.in_flight.push_back({call.method, call.count, call.seconds, call.completed_since});
  return out;
}

std::vector<prometheus::MetricFamily> RuntimeMetricsReader::Collect() const {
  if (!scraper_) return {};
  auto up = gauge_family("pleg_runtime_metrics_up",
                         "1 when the last scrape of the runtime's own metrics succeeded, else 0.");
  add_gauge(up, {}, evidence().reachable ? 1 : 0);
  return {up};
}

}  // namespace plegscope
