#include "scrape/scrape_error.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace plegscope {

ScrapeOutcome outcome_of(const HttpResult& result) {
  ScrapeOutcome out;
  out.http_status = result.status;
  out.detail = result.error_detail;
  switch (result.error) {
    case HttpError::none:
      if (result.status == 401) out.error = ScrapeError::unauthorized;
      else if (result.status == 403) out.error = ScrapeError::forbidden;
      else if (result.status == 404) out.error = ScrapeError::not_found;
      else if (result.status < 200 || result.status >= 300) out.error = ScrapeError::http_status;
      if (!out.ok()) out.detail = "HTTP " + std::to_string(result.status);
      return out;
    case HttpError::bad_url: out.error = ScrapeError::bad_input; break;
    case HttpError::resolve_failed:
    case HttpError::connect_refused: out.error = ScrapeError::unreachable; break;
    case HttpError::timeout: out.error = ScrapeError::timeout; break;
    case HttpError::tls_verify_failed: out.error = ScrapeError::tls_verify_failed; break;
    case HttpError::tls_failed:
    case HttpError::ca_file_unusable:
    case HttpError::client_cert_unusable: out.error = ScrapeError::tls_failed; break;
    case HttpError::too_large: out.error = ScrapeError::too_large; break;
    case HttpError::transfer_failed: out.error = ScrapeError::unreachable; break;
  }
  out.detail = std::string(http_error_name(result.error)) + ": " + result.error_detail;
  return out;
}

bool read_token_file(const std::string& path, std::string& token, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) {
    error = path + ": empty";
    return false;
  }
  return true;
}

}  // namespace plegscope
