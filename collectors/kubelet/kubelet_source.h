#pragma once
// Fetches the kubelet's /metrics (the adapter at the edge; the parse is
// parse_kubelet_metrics). The token file is read on every scrape: a
// projected ServiceAccount token rotates under the agent.
#include <chrono>
#include <string>

#include "http/scrape_error.h"
#include "kubelet/kubelet_metrics.h"

namespace plegscope {

struct KubeletSourceConfig {
  std::string base_url;    // "https://10.0.0.5:10250"; "/metrics" is appended
  std::string token_file;  // empty: no Authorization header
  std::string ca_file;     // empty: the system's store
  bool insecure_skip_verify = false;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds total_timeout{5000};
  size_t max_body_bytes = 32u << 20;  // a kubelet exposition is a few MiB at most
};

// "skip_verify", "ca_file" or "system_ca", for the report's "which mode" line.
const char* kubelet_tls_mode(const KubeletSourceConfig& config);

struct KubeletScrape {
  ScrapeOutcome outcome;
  KubeletSample sample;  // empty unless outcome.ok()
  size_t body_bytes = 0;
};

// Thread-safe: holds only its config.
class KubeletSource {
 public:
  explicit KubeletSource(KubeletSourceConfig config);
  KubeletScrape scrape() const;
  const KubeletSourceConfig& config() const { return config_; }

 private:
  const KubeletSourceConfig config_;
};

}  // namespace plegscope
