#include "kubelet/kubelet_source.h"

#include <utility>

namespace plegscope {

const char* kubelet_tls_mode(const KubeletSourceConfig& config) {
  if (config.insecure_skip_verify) return "skip_verify";
  return config.ca_file.empty() ? "system_ca" : "ca_file";
}

KubeletSource::KubeletSource(KubeletSourceConfig config) : config_(std::move(config)) {}

KubeletScrape KubeletSource::scrape() const {
  KubeletScrape out;
  HttpRequestOptions options;
  options.ca_file = config_.ca_file;
  options.insecure_skip_verify = config_.insecure_skip_verify;
  options.connect_timeout = config_.connect_timeout;
  options.total_timeout = config_.total_timeout;
  options.max_body_bytes = config_.max_body_bytes;
  if (!config_.token_file.empty()) {
    std::string error;
    if (!read_token_file(config_.token_file, options.bearer_token, error)) {
      out.outcome.error = ScrapeError::credentials_unreadable;
      out.outcome.detail = error;
      return out;
    }
  }
  std::string url = config_.base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  HttpResult result = http_get(url + "/metrics", options);
  out.body_bytes = result.body.size();
  out.outcome = outcome_of(result);
  if (!out.outcome.ok()) return out;
  out.sample = parse_kubelet_metrics(result.body);
  if (out.sample.families_found == 0) {
    out.outcome.error = ScrapeError::unexpected_content;
    out.outcome.detail = out.sample.parse_error.empty() ? "no kubelet metric family" : out.sample.parse_error;
  }
  return out;
}

}  // namespace plegscope
