#include "kubelet/kubelet_reader.h"

#include <spdlog/spdlog.h>

#include "common/metric_family.h"
#include "cri/kubelet_runtime_errors.h"

namespace plegscope {

KubeletReader::KubeletReader(const KubeletReaderOptions& options, std::optional<ApiServerConfig> api,
                             std::string node_name, const Clock& clock)
    : clock_(clock),
      api_(std::move(api)),
      node_name_(std::move(node_name)),
      interval_(options.scrape_interval),
      ready_interval_(options.node_ready_interval) {
  // The flag names the kubelet's release where it cannot be read: also
  // when the scrape is off.
  if (!options.version.empty())
    if (auto version = parse_kubelet_version(options.version)) state_.set_version_override(*version);
  if (options.endpoint.empty()) return;
  KubeletScrapeConfig config;
  config.url = options.endpoint;
  config.token_file = options.token_file;
  config.ca_file = options.ca_file;
  config.insecure_skip_verify = options.insecure_skip_tls_verify;
  scraper_.emplace(config);
  evidence_.endpoint = options.endpoint;
  evidence_.tls_mode = kubelet_tls_mode(config);
  evidence_.outcome.error = ScrapeError::none;
}

KubeletReader::KubeletReader(const Options& options, const SourceContext& context)
    : KubeletReader(options,
                    context.api_server ? std::optional<ApiServerConfig>(*context.api_server) : std::nullopt,
                    context.node_name, context.clock) {}

void KubeletReader::start(SourceLanes lanes) {
  FdTask* serving = lanes.waiting.served_task();
  if (scraper_) {
    scraper_->serve_while_waiting(serving);
    lanes.waiting.every(interval_, [this] { scrape_now(); });
  }
  if (ready_enabled()) {
    api_->serve_while_waiting = serving;
    lanes.waiting.every(ready_interval_, [this] { fetch_ready_now(); });
  }
}

void KubeletReader::scrape_now() {
  if (!scraper_) return;
  KubeletScrape scrape = scraper_->scrape();  // bounded by its timeouts, outside the lock
  std::optional<KubeletView> view;
  {
    std::lock_guard<std::mutex> lock(mu_);
    record_scrape("kubelet", evidence_.endpoint, scrape.outcome, logged_once_, evidence_);
    if (scrape.outcome.ok()) {
      const MonoTime now = clock_.monotonic();
      state_.observe(scrape.sample, now, clock_.now());
      std::map<std::string, Histogram> calls;
      for (const char* op : {"run_podsandbox", "stop_podsandbox", "list_podsandbox", "list_containers"})
        if (auto it = scrape.sample.runtime_operations_duration.find(op);
            it != scrape.sample.runtime_operations_duration.end())
          calls[op] = it->second;
      std::map<std::string, Histogram> sandbox;
      for (const char* op : {"run_podsandbox", "stop_podsandbox"})
        if (auto it = calls.find(op); it != calls.end()) sandbox[op] = it->second;
      sandbox_.add(now, std::move(sandbox));
      evidence_.sandbox_p99_seconds = sandbox_.recent_p99();
      calls_.add(now, std::move(calls));
      evidence_.call_steps.clear();
      for (const HistogramStep& step : calls_.steps()) {
        KubeletEvidence::CallStep& out = evidence_.call_steps.emplace_back();
        out.monotonic_from = step.from;
        out.monotonic_to = step.to;
        for (const auto& [op, added] : step.added)
          out.calls[op] = {added.count, bucket_quantile(0.99, added).value_or(0)};
      }
      view = state_.view(now);
    }
  }
  if (view && on_view_) on_view_(*view);
}

void KubeletReader::fetch_ready_now() {
  if (!ready_enabled()) return;
  NodeReadyFetch fetch = fetch_node_ready(*api_, node_name_);
  std::lock_guard<std::mutex> lock(mu_);
  const bool changed = !evidence_.ready_outcome || evidence_.ready_outcome->error != fetch.outcome.error;
  if (changed)
    spdlog::log(fetch.outcome.ok() ? spdlog::level::info : spdlog::level::warn, "API server at {}: node {}: {} {}",
                api_->base_url, node_name_, fetch.outcome.ok() ? "Ready condition read" :
                scrape_error_name(fetch.outcome.error), fetch.outcome.detail);
  evidence_.ready_outcome = fetch.outcome;
  // A message from an earlier fetch would read as current: none is shown.
  evidence_.ready_message.reset();
  evidence_.ready_says = {};
  if (fetch.ready) {
    evidence_.ready_message = fetch.ready->message;
    evidence_.ready_says = read_ready_message(fetch.ready->message);
  }
}

KubeletEvidence KubeletReader::evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  KubeletEvidence out = evidence_;
  out.view = state_.view(clock_.monotonic());
  return out;
}

std::vector<prometheus::MetricFamily> KubeletReader::Collect() const {
  if (!scraper_) return {};
  auto up = gauge_family("pleg_kubelet_up", "1 when the last scrape of the kubelet's /metrics succeeded, else 0.");
  add_gauge(up, {}, evidence().reachable ? 1 : 0);
  return {up};
}

}  // namespace plegscope
