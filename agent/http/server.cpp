#include "http/server.h"

#include <civetweb.h>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <mutex>
#include <thread>

#include "http/web/tls_context.h"

namespace plegscope {

std::map<std::string, std::string> parse_query(const std::string& query) {
  std::map<std::string, std::string> out;
  size_t pos = 0;
  while (pos <= query.size() && !query.empty()) {
    size_t amp = query.find('&', pos);
    std::string pair = query.substr(pos, amp == std::string::npos ? std::string::npos : amp - pos);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      std::string key = pair.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : pair.substr(eq + 1);
      std::vector<char> buf(value.size() + 1);
      int n = mg_url_decode(value.c_str(), static_cast<int>(value.size()), buf.data(),
                            static_cast<int>(buf.size()), 1);
      out[key] = n >= 0 ? std::string(buf.data(), n) : value;
    }
    if (amp == std::string::npos) break;
    pos = amp + 1;
  }
  return out;
}

namespace {

void wake_listener(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::close(fd);
}

}  // namespace

HttpServer::HttpServer() {
  static std::once_flag once;
  std::call_once(once, [] { mg_init_library(0); });
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::route(const std::string& path, HttpHandler handler) {
  routes_[path] = std::move(handler);
}

HttpResponse HttpServer::dispatch(const HttpRequest& request) const {
  auto it = routes_.find(request.path);
  if (it == routes_.end()) return HttpResponse::text(404, "not found: " + request.path);
  if (request.method != "GET" && request.method != "HEAD") {
    auto response = HttpResponse::text(405, "method not allowed: " + request.method + " (use GET)");
    response.headers.emplace_back("Allow", "GET, HEAD");
    return response;
  }
  try {
    return it->second(request);
  } catch (const std::exception& e) {
    spdlog::error("HTTP {}: {}", request.path, e.what());
    return HttpResponse::text(500, std::string("internal error: ") + e.what());
  }
}

HttpResponse HttpServer::handle(const HttpRequest& request, const char* authorization) const {
  HttpResponse response;
  if (auth_ && !auth_->allows(authorization)) {
    response = HttpResponse::text(401, "unauthorized");
    response.headers.emplace_back("WWW-Authenticate", "Basic realm=\"plegscope\", charset=\"UTF-8\"");
  } else {
    response = dispatch(request);
  }
  response.headers.insert(response.headers.end(), extra_headers_.begin(), extra_headers_.end());
  return response;
}

int HttpServer::on_request(mg_connection* conn, void* self) {
  const mg_request_info* info = mg_get_request_info(conn);
  HttpRequest request;
  request.method = info->request_method ? info->request_method : "";
  request.path = info->local_uri ? info->local_uri : "/";
  if (info->query_string) request.query = parse_query(info->query_string);
  HttpResponse response =
      static_cast<HttpServer*>(self)->handle(request, mg_get_header(conn, "Authorization"));
  const char* reason = mg_get_response_code_text(conn, response.status);
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " + reason +
                     "\r\nContent-Type: " + response.content_type +
                     "\r\nContent-Length: " + std::to_string(response.content().size()) +
                     "\r\nCache-Control: no-store\r\nConnection: close\r\n";
  for (const auto& [name, value] : response.headers) head += name + ": " + value + "\r\n";
  head += "\r\n";
  mg_write(conn, head.data(), head.size());
  if (request.method != "HEAD") mg_write(conn, response.content().data(), response.content().size());
  return response.status;
}

std::string HttpServer::start(const std::string& listen_address, const WebConfig& web,
                              const HttpLimits& limits) {
  // Only the gate reaches it; the gate owns the address asked for.
  std::string ports = "127.0.0.1:0";
  if (web.tls) {
    // Debian's civetweb loads libssl at run time; without it an "s" port
    // would accept connections and crash on the first handshake.
    if ((mg_init_library(MG_FEATURES_TLS) & MG_FEATURES_TLS) == 0)
      return "TLS is not available: civetweb could not load OpenSSL (libssl.so; see README, TLS)";
    auto tls = make_server_tls_context(*web.tls);
    if (!tls.ssl_ctx) return tls.error;
    tls_context_ = tls.ssl_ctx;
    ports += "s";
  }
  if (!web.basic_auth_users.empty())
    auth_ = std::make_unique<BasicAuthenticator>(web.basic_auth_users, clock_);
  extra_headers_ = web.headers;

  const std::string threads = std::to_string(limits.worker_threads),
                    request_timeout = std::to_string(limits.request_timeout_ms),
                    request_size = std::to_string(limits.max_request_size),
                    backlog = std::to_string(limits.listen_backlog),
                    queue = std::to_string(limits.connection_queue);
  const char* options[] = {"listening_ports", ports.c_str(),
                           "num_threads", threads.c_str(),
                           "request_timeout_ms", request_timeout.c_str(),
                           "keep_alive_timeout_ms", request_timeout.c_str(),
                           "enable_keep_alive", limits.keep_alive ? "yes" : "no",
                           "max_request_size", request_size.c_str(),
                           "listen_backlog", backlog.c_str(),
                           "connection_queue", queue.c_str(),
                           nullptr};
  // civetweb's close is left graceful (no linger_timeout_ms): it closes
  // right after its last write, and a reset would drop what the gate has
  // not read yet. The gate resets its end once it has read everything, so
  // neither end lingers in TIME_WAIT.
  mg_callbacks callbacks{};
  // civetweb logs through this; route it to our logger instead of stderr.
  callbacks.log_message = [](const mg_connection*, const char* message) {
    spdlog::debug("http: {}", message);
    return 1;
  };
  // Hands civetweb the context built above; at shutdown civetweb frees it.
  callbacks.external_ssl_ctx = [](void** ssl_ctx, void* self) {
    if (*ssl_ctx != nullptr) return 0;
    *ssl_ctx = static_cast<HttpServer*>(self)->tls_context_;
    static_cast<HttpServer*>(self)->tls_context_ = nullptr;
    return 1;
  };
  ctx_ = mg_start(&callbacks, this, options);
  if (tls_context_) free_tls_context(tls_context_);  // not taken: mg_start failed early
  tls_context_ = nullptr;
  if (ctx_ == nullptr) return "cannot listen on " + listen_address + " (the server behind it did not start)";
  mg_set_request_handler(ctx_, "/", &HttpServer::on_request, this);
  mg_server_port upstream[1] = {};
  GateLimits gate;
  gate.head_timeout = gate.stall_timeout = std::chrono::milliseconds(limits.request_timeout_ms);
  gate.max_request_size = static_cast<size_t>(limits.max_request_size);
  gate.listen_backlog = limits.listen_backlog;
  gate.defer_accept_seconds = limits.defer_accept_seconds;
  std::string error = mg_get_server_ports(ctx_, 1, upstream) > 0
                          ? gate_.start(listen_address, upstream[0].port, web.tls.has_value(), gate)
                          : "cannot listen on " + listen_address + " (no port behind it)";
  if (!error.empty()) stop();
  return error;
}

int HttpServer::port() const { return gate_.port(); }

void HttpServer::stop() {
  gate_.stop();
  if (!ctx_) return;
  mg_server_port ports[4] = {};
  int count = mg_get_server_ports(ctx_, 4, ports);
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    mg_stop(ctx_);
    stopped = true;
  });
  // civetweb's listener polls its sockets with a 2 s timeout; a connection
  // of our own wakes it, so stopping takes milliseconds instead.
  while (!stopped) {
    for (int i = 0; i < count; ++i) wake_listener(ports[i].port);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stopper.join();
  ctx_ = nullptr;
}

}  // namespace plegscope
