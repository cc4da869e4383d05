#pragma once
// What went wrong fetching a metrics page or an API object, as data: the
// report turns each kind into its remedy (401: the kubelet's authentication
// webhook or the token; 403: RBAC `get nodes/metrics`; ...), the raw detail
// is kept for the log.
#include <string>

#include "scrape/http_client.h"

namespace plegscope {

enum class ScrapeError {
  none,
  credentials_unreadable,  // the token file could not be read
  unreachable,             // resolve failed, connection refused
  timeout,
  tls_verify_failed,       // chain or host name did not verify
  tls_failed,              // handshake, CA file or client certificate
  unauthorized,            // HTTP 401
  forbidden,               // HTTP 403
  not_found,               // HTTP 404
  http_status,             // any other non-2xx
  too_large,               // body past the cap
  unexpected_content,             // 2xx but not the expected content
  bad_input,               // the caller's URL or name was unusable
};

const char* scrape_error_name(ScrapeError error);

struct ScrapeOutcome {
  ScrapeError error = ScrapeError::none;
  long http_status = 0;
  std::string detail;  // raw: libcurl's message, the parser's first error, ...
  bool ok() const { return error == ScrapeError::none; }
};

// Maps a finished request to an outcome; a 2xx maps to none.
ScrapeOutcome outcome_of(const HttpResult& result);

// Reads a bearer token file (trailing whitespace trimmed); false when the
// file cannot be read.
bool read_token_file(const std::string& path, std::string& token, std::string& error);

}  // namespace plegscope
