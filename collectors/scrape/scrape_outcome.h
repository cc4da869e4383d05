#pragma once
// What went wrong fetching a metrics page or an API object, as data: the
// report turns each kind into its remedy (401: the kubelet's authentication
// webhook or the token; 403: RBAC `get nodes/metrics`; ...), the raw detail
// is kept for the log. outcome_of (scrape/scrape_error.h) makes one. And a
// reader's record of its page, which holds its last outcome.
#include <string>

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

// The kind's snake_case id (the report's `outcome`, log lines).
constexpr const char* scrape_error_name(ScrapeError error) {
  switch (error) {
    case ScrapeError::none: return "none";
    case ScrapeError::credentials_unreadable: return "credentials_unreadable";
    case ScrapeError::unreachable: return "unreachable";
    case ScrapeError::timeout: return "timeout";
    case ScrapeError::tls_verify_failed: return "tls_verify_failed";
    case ScrapeError::tls_failed: return "tls_failed";
    case ScrapeError::unauthorized: return "unauthorized";
    case ScrapeError::forbidden: return "forbidden";
    case ScrapeError::not_found: return "not_found";
    case ScrapeError::http_status: return "http_status";
    case ScrapeError::too_large: return "too_large";
    case ScrapeError::unexpected_content: return "unexpected_content";
    case ScrapeError::bad_input: return "bad_input";
  }
  return "unknown";
}

struct ScrapeOutcome {
  ScrapeError error = ScrapeError::none;
  long http_status = 0;
  std::string detail;  // raw: libcurl's message, the parser's first error, ...
  bool ok() const { return error == ScrapeError::none; }
};

// A reader's record of its page: whether the last scrape went through, and
// why not. Not thread-safe: its reader's lock guards it.
struct ScrapeRecord {
  bool reachable = false;  // the last scrape succeeded
  ScrapeOutcome outcome;   // why not, when it did not
};

}  // namespace plegscope
