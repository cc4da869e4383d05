#pragma once
// One GET of a metrics page or an API object, set up the same way for every
// reader (the kubelet, the runtime's metrics page, the API server): TLS
// material, timeouts and body cap from the reader's config, the bearer
// token read from its file on every request (a projected ServiceAccount
// token is rotated on disk).
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "http/scrape_error.h"

namespace plegscope {

// A plain value; each reader fills it from its own config.
struct ScrapeRequest {
  std::string url;
  std::string token_file;  // empty: no Authorization header
  std::string ca_file;     // empty: the system's store
  std::string client_cert_file;
  std::string client_key_file;
  bool insecure_skip_verify = false;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds total_timeout{5000};
  size_t max_body_bytes = 32u << 20;
  std::vector<std::string> headers;  // extra "Name: value" lines
};

struct ScrapeResponse {
  ScrapeOutcome outcome;  // credentials_unreadable when the token file could not be read (no request made)
  std::string body;       // what arrived, partial on a failed transfer
};

// Thread-safe; blocks at most about connect + total timeout.
ScrapeResponse scrape_get(const ScrapeRequest& request);
// The same set-up for a write to the API server: "POST" or "PATCH" with
// `body`; the Content-Type is among request.headers.
ScrapeResponse scrape_send(const ScrapeRequest& request, const std::string& method, const std::string& body);

}  // namespace plegscope
