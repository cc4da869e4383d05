#include "scrape/scrape_get.h"

#include <utility>

namespace plegscope {

ScrapeResponse scrape_get(const ScrapeRequest& request, std::string body_storage) {
  return scrape_send(request, "GET", "", std::move(body_storage));
}

ScrapeResponse scrape_send(const ScrapeRequest& request, const std::string& method, const std::string& body,
                           std::string body_storage) {
  ScrapeResponse out;
  HttpRequestOptions options;
  options.ca_file = request.ca_file;
  options.client_cert_file = request.client_cert_file;
  options.client_key_file = request.client_key_file;
  options.insecure_skip_verify = request.insecure_skip_verify;
  options.connect_timeout = request.connect_timeout;
  options.total_timeout = request.total_timeout;
  options.max_body_bytes = request.max_body_bytes;
  options.headers = request.headers;
  options.serve_while_waiting = request.serve_while_waiting;
  if (!request.token_file.empty()) {
    std::string error;
    if (!read_token_file(request.token_file, options.bearer_token, error)) {
      out.outcome.error = ScrapeError::credentials_unreadable;
      out.outcome.detail = error;
      return out;
    }
  }
  HttpResult result = http_send(method, request.url, body, options, std::move(body_storage));
  out.outcome = outcome_of(result);
  out.body = std::move(result.body);
  return out;
}

}  // namespace plegscope
