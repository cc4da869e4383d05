#pragma once
// One GET of a metrics page or an API object, set up the same way for every
// reader (the kubelet, the runtime's metrics page, the API server): TLS
// material, timeouts and body cap from the reader's config, the bearer
// token read from its file on every request (a projected ServiceAccount
// token is rotated on disk).
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "common/fd_task.h"
#include "scrape/scrape_error.h"

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
  FdTask* serve_while_waiting = nullptr;  // HttpRequestOptions'
};

struct ScrapeResponse {
  ScrapeOutcome outcome;  // credentials_unreadable when the token file could not be read (no request made)
  std::string body;       // what arrived, partial on a failed transfer
};

// Thread-safe; blocks at most about connect + total timeout. body_storage,
// when given, receives the body (see ScrapeBuffer).
ScrapeResponse scrape_get(const ScrapeRequest& request, std::string body_storage = {});
// The same set-up for a write to the API server: "POST" or "PATCH" with
// `body`; the Content-Type is among request.headers.
ScrapeResponse scrape_send(const ScrapeRequest& request, const std::string& method, const std::string& body,
                           std::string body_storage = {});

// One reader's page storage, kept from one scrape to the next: a page of a
// MiB or more, allocated afresh, costs its growth's copies and a page fault
// per 4 KiB on every scrape; kept, it costs its size in memory between
// scrapes. Thread-safe: a scrape that finds it taken gets a fresh one.
class ScrapeBuffer {
 public:
  std::string take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::move(kept_);
  }
  void give_back(std::string body) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (body.capacity() > kept_.capacity()) kept_ = std::move(body);
  }

 private:
  std::mutex mutex_;
  std::string kept_;
};

}  // namespace plegscope
