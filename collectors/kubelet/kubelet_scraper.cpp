#include "kubelet/kubelet_scraper.h"

#include <utility>

namespace plegscope {

const char* kubelet_tls_mode(const KubeletScrapeConfig& config) {
  if (config.insecure_skip_verify) return "skip_verify";
  return config.ca_file.empty() ? "system_ca" : "ca_file";
}

KubeletScraper::KubeletScraper(KubeletScrapeConfig config) : config_(std::move(config)) {}

KubeletScrape KubeletScraper::scrape() const {
  KubeletScrape out;
  ScrapeRequest request = config_;
  while (!request.url.empty() && request.url.back() == '/') request.url.pop_back();
  request.url += "/metrics";
  ScrapeResponse response = scrape_get(request, page_storage_.take());
  out.body_bytes = response.body.size();
  out.outcome = response.outcome;
  if (out.outcome.ok()) out.sample = parse_kubelet_metrics(response.body);
  page_storage_.give_back(std::move(response.body));
  if (!out.outcome.ok()) return out;
  if (out.sample.families_found == 0) {
    out.outcome.error = ScrapeError::unexpected_content;
    out.outcome.detail = out.sample.parse_error.empty() ? "no kubelet metric family" : out.sample.parse_error;
  }
  return out;
}

}  // namespace plegscope
