#pragma once
// Fetches the kubelet's /metrics (the adapter at the edge; the parse is
// parse_kubelet_metrics). The token file is read on every scrape: a
// projected ServiceAccount token rotates under the agent.
#include "scrape/scrape_error.h"
#include "scrape/scrape_get.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope {

// url is the kubelet's base URL, "https://10.0.0.5:10250": "/metrics" is appended.
using KubeletScrapeConfig = ScrapeRequest;

// "skip_verify", "ca_file" or "system_ca", for the report's "which mode" line.
const char* kubelet_tls_mode(const KubeletScrapeConfig& config);

struct KubeletScrape {
  ScrapeOutcome outcome;
  KubeletSample sample;  // empty unless outcome.ok()
  size_t body_bytes = 0;
};

// Thread-safe: holds its config and the last page's storage.
class KubeletScraper {
 public:
  explicit KubeletScraper(KubeletScrapeConfig config);
  // A task the scrape's waits serve (the waiting lane's); before scraping.
  void serve_while_waiting(FdTask* task) { config_.serve_while_waiting = task; }
  KubeletScrape scrape() const;
  const KubeletScrapeConfig& config() const { return config_; }

 private:
  KubeletScrapeConfig config_;
  mutable ScrapeBuffer page_storage_;
};

}  // namespace plegscope
