#pragma once
// The kubelet beside the agent, as a source: its /metrics scraped every
// scrape_interval (its own PLEG's figures, its version and feature gates),
// and, in a cluster, the Node's Ready message from the API server every
// node_ready_interval, read whether or not the scrape is on. Both wait on
// sockets, bounded by their timeouts: they run on the waiting lane. A failed
// scrape is evidence (reachable false), never fatal.
#include <functional>
#include <mutex>
#include <optional>

#include "common/source.h"
#include "kubelet/kubelet_evidence.h"
#include "kubelet/kubelet_scraper.h"
#include "kubelet/node_ready.h"
#include "kubelet/kubelet_state.h"
#include "scrape/scrape_loop.h"

namespace plegscope {

struct KubeletReaderOptions {
  std::string endpoint;  // base URL, "https://10.0.0.5:10250"; "" turns the scrape off
  std::string token_file = kServiceAccountTokenFile;
  std::string ca_file = kServiceAccountCaFile;
  bool insecure_skip_tls_verify = false;
  std::string version;  // "": the kubelet's own kubernetes_build_info
  Duration scrape_interval = std::chrono::seconds(5);
  Duration node_ready_interval = std::chrono::seconds(30);
};
// --kubelet-endpoint and the kubelet's credentials and version (kubelet_flags.cpp).
void add_flags(CLI::App& app, KubeletReaderOptions& options);

// Thread-safe.
class KubeletReader final : public SourceOf<KubeletEvidence> {
 public:
  // `api` nullopt: not in a cluster, no Ready message.
  using Options = KubeletReaderOptions;
  KubeletReader(const KubeletReaderOptions& options, std::optional<ApiServerConfig> api, std::string node_name,
                const Clock& clock);
  KubeletReader(const Options& options, const SourceContext& context);

  std::string_view name() const override { return "kubelet"; }
  bool enabled() const override { return scraper_.has_value() || ready_enabled(); }
  void start(SourceLanes lanes) override;
  KubeletEvidence evidence() const override;
  // pleg_kubelet_up, while the scrape is on: `== 0` then means a scrape
  // failed, never that the reader was left off.
  std::vector<prometheus::MetricFamily> Collect() const override;

  // Whether the kubelet's /metrics is read (--kubelet-endpoint not off).
  bool scraping() const { return scraper_.has_value(); }
  // One scrape or Ready fetch on the calling thread (tests); start() runs them itself.
  void scrape_now();
  void fetch_ready_now();
  // Called on the waiting lane after each successful scrape, outside the
  // lock; set before start().
  void on_view(std::function<void(const KubeletView&)> callback) { on_view_ = std::move(callback); }

 private:
  bool ready_enabled() const { return api_.has_value() && !node_name_.empty(); }

  const Clock& clock_;
  std::function<void(const KubeletView&)> on_view_;
  std::optional<KubeletScraper> scraper_;
  std::optional<ApiServerConfig> api_;
  const std::string node_name_;
  const Duration interval_, ready_interval_;
  mutable std::mutex mu_;
  KubeletEvidence evidence_;  // all but the view
  bool logged_once_ = false;
  KubeletState state_;
  HistogramWindow sandbox_;  // the kubelet's sandbox call histograms (the minute's p99)
  // Its sandbox and list calls, scrape by scrape: two minutes, so that the
  // sandboxes created beside a slow one of the minute are still counted.
  HistogramWindow calls_{std::chrono::seconds(120)};
};

}  // namespace plegscope
