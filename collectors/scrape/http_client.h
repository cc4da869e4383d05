#pragma once
// Every outbound HTTP request plegscope makes (the kubelet, the API server,
// the runtime's metrics page, `plegscope diagnose --url`) goes through
// http_get: libcurl, host names verified unless the caller opts out, every
// request bounded by a connect timeout, a total timeout and a body cap, no
// redirects followed, no proxy from the environment unless asked.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "common/fd_task.h"

namespace plegscope {

struct HttpRequestOptions {
  std::string bearer_token;  // "Authorization: Bearer ..." when not empty
  std::string basic_auth_user;  // basic auth when not empty
  std::string basic_auth_password;
  std::string ca_file;  // PEM bundle; empty: the system's store
  std::string client_cert_file;  // PEM; may hold the key too
  std::string client_key_file;   // empty: the key is in client_cert_file
  bool insecure_skip_verify = false;  // neither the chain nor the host name
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{10000};
  size_t max_body_bytes = 16u << 20;
  bool use_environment_proxy = false;  // honour HTTPS_PROXY and friends
  std::vector<std::string> headers;    // extra "Name: value" lines
  // Served while the request waits (the waiting lane's journal follower),
  // so that a thread that waits on sockets does the task's work meanwhile.
  FdTask* serve_while_waiting = nullptr;
  std::string unix_socket_path;  // connect there instead of the URL's host (CRI-O's pages on crio.sock)
};

enum class HttpError {
  none,
  bad_url,            // not http(s)://..., or curl rejected it
  resolve_failed,     // DNS
  connect_refused,    // TCP connect failed (refused, unreachable)
  timeout,            // connect or total timeout
  tls_verify_failed,  // peer's chain or host name did not verify
  tls_failed,         // handshake or protocol failure other than verification
  ca_file_unusable,   // the CA file could not be read
  client_cert_unusable,  // the client certificate or key could not be used
  too_large,          // the body passed max_body_bytes
  transfer_failed,    // the connection broke mid-answer, or anything else
};

// A stable snake_case name for logs and JSON ("connect_refused", ...).
const char* http_error_name(HttpError error);

struct HttpResult {
  long status = 0;  // HTTP status; 0 when no answer arrived
  std::string body;  // what arrived (partial when error != none)
  HttpError error = HttpError::none;
  std::string error_detail;  // libcurl's message, for logs; empty when none

  // An answer arrived in full; the status may still be 4xx/5xx.
  bool completed() const { return error == HttpError::none; }
  bool ok() const { return completed() && status >= 200 && status < 300; }
};

// Thread-safe: each thread reuses its own handle (and with it the open
// connection and TLS session to a server it asked before); libcurl's global
// set-up runs once, on the first call. Blocks at most about connect + total
// timeout. body_storage, when given, receives the body (cleared first): a
// caller that passes back the last body keeps its capacity across requests.
HttpResult http_get(const std::string& url, const HttpRequestOptions& options, std::string body_storage = {});

// The same client for the API server's writes (the node condition and its
// Events, with --node-condition): `method` is "POST" or "PATCH", `body` is
// sent as is (the caller sets Content-Type among options.headers).
HttpResult http_send(const std::string& method, const std::string& url, const std::string& body,
                     const HttpRequestOptions& options, std::string body_storage = {});

}  // namespace plegscope
