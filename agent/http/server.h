#pragma once
// One civetweb server for the whole agent. Handlers are plain functions from
// a request to a response, so they are tested without sockets.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "http/connection_gate.h"
#include "http/web/basic_auth.h"
#include "http/web/web_config.h"

struct mg_context;
struct mg_connection;

namespace plegscope {

struct HttpRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;  // decoded
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers{};  // beyond Content-Type/Length
  // Sent instead of `body` when set: one text shared by many answers
  // (/metrics under a storm of scrapes), never copied per request.
  std::shared_ptr<const std::string> shared_body{};

  const std::string& content() const { return shared_body ? *shared_body : body; }

  static HttpResponse text(int status, std::string body) {
    return {status, "text/plain; charset=utf-8", std::move(body) + "\n", {}};
  }
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Splits "a=1&b=x%20y" into decoded pairs.
std::map<std::string, std::string> parse_query(const std::string& query);

// The limits that keep /metrics answering while clients misbehave (docs/operate.md,
// "HTTP limits"). A connection reaches civetweb only once its request head
// has arrived (ConnectionGate), so a worker is busy for the milliseconds an
// answer takes, never waiting on a slow or silent client.
struct HttpLimits {
  int worker_threads = 2;            // answers are cached pages: a few workers keep up with hundreds of scrapers
  int request_timeout_ms = 1000;     // the request line and headers must arrive in this time; a write may stall this long
  int max_request_size = 16384;      // request line + headers; larger gets 413
  int listen_backlog = 4096;         // connections the kernel queues before the gate accepts them
  int connection_queue = 1024;       // admitted connections waiting for a worker
  bool keep_alive = false;           // one request per connection
  int defer_accept_seconds = 60;     // TCP_DEFER_ACCEPT: silent connections wait in the kernel
};

// Thread-safe once started: civetweb worker threads call the handlers.
class HttpServer {
 public:
  HttpServer();
  ~HttpServer();
  // Exact-path routes; anything else is 404. Only GET and HEAD are allowed (405).
  void route(const std::string& path, HttpHandler handler);
  // Starts listening on "HOST:PORT" with the web config's TLS, basic auth and
  // headers applied to every route; returns a one-line error on failure.
  std::string start(const std::string& listen_address, const WebConfig& web = {},
                    const HttpLimits& limits = {});
  void stop();
  // The public port actually bound (useful with ":0"); 0 when not started.
  int port() const;

  // Routes `request` after checking its credentials (the Authorization
  // header's value, nullptr when absent); adds the configured headers.
  HttpResponse handle(const HttpRequest& request, const char* authorization) const;
  HttpResponse dispatch(const HttpRequest& request) const;

 private:
  static int on_request(mg_connection* conn, void* self);
  std::map<std::string, HttpHandler> routes_;
  SystemClock clock_;
  std::unique_ptr<BasicAuthenticator> auth_;
  std::vector<std::pair<std::string, std::string>> extra_headers_;
  void* tls_context_ = nullptr;  // SSL_CTX*, handed to civetweb at start
  mg_context* ctx_ = nullptr;  // civetweb, on a loopback port behind gate_
  ConnectionGate gate_;
};

}  // namespace plegscope
