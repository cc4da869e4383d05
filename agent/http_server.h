#pragma once
// One civetweb server for the whole agent. Handlers are plain functions from
// a request to a response, so they are tested without sockets.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

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

  static HttpResponse text(int status, std::string body) {
    return {status, "text/plain; charset=utf-8", std::move(body) + "\n"};
  }
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// Splits "a=1&b=x%20y" into decoded pairs.
std::map<std::string, std::string> parse_query(const std::string& query);

// Thread-safe once started: civetweb worker threads call the handlers.
class HttpServer {
 public:
  HttpServer();
  ~HttpServer();
  // Exact-path routes; anything else is 404. Only GET and HEAD are allowed (405).
  void route(const std::string& path, HttpHandler handler);
  // Starts listening on "HOST:PORT"; returns an error message on failure.
  std::string start(const std::string& listen_address, int threads = 4);
  void stop();
  // The port actually bound (useful with ":0"); 0 when not started.
  int port() const;

  HttpResponse dispatch(const HttpRequest& request) const;

 private:
  static int on_request(mg_connection* conn, void* self);
  std::map<std::string, HttpHandler> routes_;
  mg_context* ctx_ = nullptr;
};

}  // namespace plegscope
