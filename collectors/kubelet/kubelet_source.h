#pragma once
// Fetches the kubelet's /metrics (the adapter at the edge; the parse is
// parse_kubelet_metrics). The token file is read on every scrape: a
// projected ServiceAccount token rotates under the agent.
#include "http/scrape_error.h"
#include "http/scrape_get.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope {

// url is the kubelet's base URL, "https://10.0.0.5:10250": "/metrics" is appended.
using KubeletSourceConfig = ScrapeRequest;

// "skip_verify", "ca_file" or "system_ca", for the report's "which mode" line.
const char* kubelet_tls_mode(const KubeletSourceConfig& config);

struct KubeletScrape {
  ScrapeOutcome outcome;
  KubeletSample sample;  // empty unless outcome.ok()
  size_t body_bytes = 0;
};

// Thread-safe: holds its config and the last page's storage.
class KubeletSource {
 public:
  explicit KubeletSource(KubeletSourceConfig config);
  KubeletScrape scrape() const;
  const KubeletSourceConfig& config() const { return config_; }

 private:
  const KubeletSourceConfig config_;
  mutable ScrapeBuffer page_storage_;
};

}  // namespace plegscope
