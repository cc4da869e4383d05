#include "http/agent_client.h"

#include <civetweb.h>

#include <csignal>

#include "http/web/basic_auth.h"
#include "report/json.h"

namespace plegscope {
namespace {

mg_connection* connect(const HttpUrl& url, const AgentClientOptions& config, char* ebuf, size_t ebuf_size) {
  if (!url.tls) return mg_connect_client(url.host.c_str(), url.port, 0, ebuf, ebuf_size);
  // civetweb verifies the chain against the CA file; it does not check the host name.
  mg_client_options options{};
  options.host = url.host.c_str();
  options.port = url.port;
  options.server_cert = config.tls_ca_file.c_str();
  options.client_cert = config.tls_client_cert.empty() ? nullptr : config.tls_client_cert.c_str();
  options.host_name = url.host.c_str();
  return mg_connect_client_secure(&options, ebuf, ebuf_size);
}

// GET with civetweb's client; the body, or an error message in `error`.
std::optional<std::string> http_get(const HttpUrl& url, const AgentClientOptions& config,
                                    const std::string& target, std::string& error) {
  char ebuf[256] = {};
  mg_connection* conn = connect(url, config, ebuf, sizeof(ebuf));
  if (!conn) {
    error = std::string("cannot connect: ") + (ebuf[0] ? ebuf : "connection failed");
    return std::nullopt;
  }
  std::string authorization;
  if (!config.basic_auth_user.empty())
    authorization = "Authorization: " + basic_authorization(config.basic_auth_user, config.basic_auth_password) + "\r\n";
  mg_printf(conn, "GET %s HTTP/1.0\r\nHost: %s:%d\r\nAccept: application/json\r\n%s\r\n", target.c_str(),
            url.host.c_str(), url.port, authorization.c_str());
  if (mg_get_response(conn, ebuf, sizeof(ebuf), 30000) < 0) {
    error = std::string("no answer: ") + (ebuf[0] ? ebuf : "timeout");
    mg_close_connection(conn);
    return std::nullopt;
  }
  const mg_response_info* info = mg_get_response_info(conn);
  int status = info ? info->status_code : 0;
  std::string body;
  char buf[16384];
  int n;
  while ((n = mg_read(conn, buf, sizeof(buf))) > 0) body.append(buf, static_cast<size_t>(n));
  mg_close_connection(conn);
  if (status != 200) {
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
    error = "GET " + target + " answered HTTP " + std::to_string(status) + (body.empty() ? "" : ": " + body.substr(0, 200));
    return std::nullopt;
  }
  return body;
}

}  // namespace

std::optional<HttpUrl> parse_http_url(const std::string& url) {
  auto out = parse_agent_url(url);
  if (out && out->tls) return std::nullopt;
  return out;
}

std::optional<HttpUrl> parse_agent_url(const std::string& url) {
  HttpUrl out;
  out.tls = url.rfind("https://", 0) == 0;
  const std::string scheme = out.tls ? "https://" : "http://";
  if (url.rfind(scheme, 0) != 0) return std::nullopt;
  if (out.tls) out.port = 443;
  std::string rest = url.substr(scheme.size());
  auto slash = rest.find('/');
  if (slash != std::string::npos) {
    out.path = rest.substr(slash);
    while (!out.path.empty() && out.path.back() == '/') out.path.pop_back();
    rest = rest.substr(0, slash);
  }
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']') == std::string::npos) {
    std::string port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    out.port = std::stoi(port);
    if (out.port < 1 || out.port > 65535) return std::nullopt;
  }
  if (rest.empty()) return std::nullopt;
  out.host = rest;
  return out;
}

FetchedReport fetch_report(const HttpUrl& url, const AgentClientOptions& options) {
  FetchedReport out;
  if ((mg_init_library(url.tls ? MG_FEATURES_TLS : 0) & MG_FEATURES_TLS) == 0 && url.tls) {
    out.error = "TLS is not available: civetweb could not load OpenSSL (libssl.so)";
    return out;
  }
  // A peer that closes mid-write (a refused TLS handshake) must be an error, not SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  auto body = http_get(url, options, (url.path.empty() || url.path == "/" ? "" : url.path) + "/diagnose?format=json",
                       out.error);
  mg_exit_library();
  if (!body) return out;
  try {
    out.report = report_from_json(nlohmann::json::parse(*body));
  } catch (const std::exception& e) {
    out.error = "not a plegscope report: " + std::string(e.what()).substr(0, 160);
  }
  return out;
}

}  // namespace plegscope
