#include "node/scrape_readers.h"

#include <spdlog/spdlog.h>

namespace plegscope {
namespace {

MonotonicTime mono_now() { return std::chrono::steady_clock::now(); }

// The network figures are kept for this long to give a recent p99.
constexpr auto kNetworkWindow = std::chrono::seconds(60);

bool is_network_operation(const std::string& name) { return name.find("network") != std::string::npos; }

}  // namespace

std::optional<ApiServerConfig> api_server_config(const NodeOptions& options) {
  auto api = in_cluster_api_server(options.api_server_host, options.api_server_port);
  if (api) {
    api->token_file = options.api_server_token_file;
    api->ca_file = options.api_server_ca_file;
  }
  return api;
}

KubeletReader::KubeletReader(const NodeOptions& options, const Clock& clock)
    : clock_(clock),
      node_name_(options.node_name),
      interval_(options.scrape_interval),
      ready_interval_(options.node_ready_interval) {
  // The Ready message comes from the API server, not the kubelet: read it
  // whether or not --kubelet-endpoint is on.
  api_ = api_server_config(options);
  if (options.kubelet_endpoint.empty()) return;
  KubeletSourceConfig config;
  config.url = options.kubelet_endpoint;
  config.token_file = options.kubelet_token_file;
  config.ca_file = options.kubelet_ca_file;
  config.insecure_skip_verify = options.kubelet_insecure_skip_tls_verify;
  source_.emplace(config);
  evidence_.endpoint = options.kubelet_endpoint;
  evidence_.tls_mode = kubelet_tls_mode(config);
  evidence_.outcome.error = ScrapeError::none;
  if (!options.kubelet_version.empty())
    if (auto version = parse_kubelet_version(options.kubelet_version)) state_.set_version_override(*version);
}

void KubeletReader::start(PeriodicTasks& thread) {
  if (source_) thread.every(interval_, [this] { scrape_now(); });
  if (api_ && !node_name_.empty()) thread.every(ready_interval_, [this] { fetch_ready_now(); });
}

void KubeletReader::scrape_now() {
  if (!source_) return;
  KubeletScrape scrape = source_->scrape();  // bounded by its timeouts, outside the lock
  std::optional<KubeletView> view;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Logged when what went wrong changes, not on every scrape.
    const bool changed = scrape.outcome.error != evidence_.outcome.error || !logged_once_;
    logged_once_ = true;
    evidence_.reachable = scrape.outcome.ok();
    evidence_.outcome = scrape.outcome;
    if (changed)
      spdlog::log(evidence_.reachable ? spdlog::level::info : spdlog::level::warn, "kubelet at {}: {} {}",
                  evidence_.endpoint, evidence_.reachable ? "reachable" : scrape_error_name(scrape.outcome.error),
                  scrape.outcome.detail);
    if (scrape.outcome.ok()) {
      const MonotonicTime now = mono_now();
      state_.observe(scrape.sample, now, clock_.now());
      std::map<std::string, Histogram> sandbox;
      for (const char* op : {"run_podsandbox", "stop_podsandbox"})
        if (auto it = scrape.sample.runtime_operations_duration.find(op);
            it != scrape.sample.runtime_operations_duration.end())
          sandbox[op] = it->second;
      sandbox_.emplace_back(now, std::move(sandbox));
      while (sandbox_.size() > 2 && sandbox_[1].first <= now - kNetworkWindow) sandbox_.pop_front();
      evidence_.sandbox_p99_seconds = recent_p99(sandbox_.front().second, sandbox_.back().second);
      view = state_.view(now);
    }
  }
  if (view && on_view_) on_view_(*view);
}

void KubeletReader::fetch_ready_now() {
  if (!api_) return;
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
  if (fetch.ready) evidence_.ready_message = fetch.ready->message;
}

KubeletEvidence KubeletReader::evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  KubeletEvidence out = evidence_;
  out.view = state_.view(mono_now());
  return out;
}

std::map<std::string, double> recent_p99(const std::map<std::string, Histogram>& oldest,
                                         const std::map<std::string, Histogram>& newest) {
  std::map<std::string, double> out;
  for (const auto& [op, now] : newest) {
    auto before = oldest.find(op);
    std::optional<Histogram> recent = now;
    if (before != oldest.end() && &before->second != &now) recent = histogram_delta(now, before->second);
    if (!recent) recent = now;  // the runtime restarted: all it has is recent
    if (auto p99 = bucket_quantile(0.99, *recent)) out[op] = *p99;
  }
  return out;
}

RuntimeMetricsReader::RuntimeMetricsReader(const NodeOptions& options) : interval_(options.scrape_interval) {
  if (options.runtime_metrics_endpoint.empty()) return;
  RuntimeMetricsSourceConfig config;
  config.url = options.runtime_metrics_endpoint;
  source_.emplace(config);
  evidence_.endpoint = options.runtime_metrics_endpoint;
}

void RuntimeMetricsReader::start(PeriodicTasks& thread) {
  if (source_) thread.every(interval_, [this] { scrape_now(); });
}

void RuntimeMetricsReader::scrape_now() {
  if (!source_) return;
  RuntimeMetricsScrape scrape = source_->scrape();
  const MonotonicTime now = mono_now();
  std::lock_guard<std::mutex> lock(mu_);
  const bool changed = scrape.outcome.error != evidence_.outcome.error || !logged_once_;
  logged_once_ = true;
  evidence_.reachable = scrape.outcome.ok();
  evidence_.outcome = scrape.outcome;
  if (changed)
    spdlog::log(evidence_.reachable ? spdlog::level::info : spdlog::level::warn, "runtime metrics at {}: {} {}",
                evidence_.endpoint, evidence_.reachable ? "reachable" : scrape_error_name(scrape.outcome.error),
                scrape.outcome.detail);
  if (!scrape.outcome.ok()) return;
  const RuntimeMetricsSample& sample = scrape.sample;
  state_.observe(sample, now);
  evidence_.kind = runtime_kind_name(sample.kind);

  network_.emplace_back(now, sample.network_operations);
  while (network_.size() > 2 && network_[1].first <= now - kNetworkWindow) network_.pop_front();
  evidence_.network_p99_seconds = recent_p99(network_.front().second, network_.back().second);
  // CRI-O's summaries are already over a recent window.
  for (const auto& [op, figures] : sample.crio_operations)
    if (is_network_operation(op) && figures.p99) evidence_.network_p99_seconds[op] = *figures.p99;
}

RuntimeMetricsEvidence RuntimeMetricsReader::evidence() const {
  std::lock_guard<std::mutex> lock(mu_);
  RuntimeMetricsEvidence out = evidence_;
  if (!out.reachable) return out;  // no figure is current
  for (const RuntimeInFlightCall& call : state_.in_flight(mono_now()))
    out.in_flight.push_back({call.method, call.count, call.seconds, call.completed_since});
  return out;
}

}  // namespace plegscope
