#include "http/agent_client.h"

#include "scrape/http_client.h"
#include "report/json.h"

namespace plegscope {
namespace {

// One line from a failed request: what failed, libcurl's words for it.
std::string request_error(const HttpResult& result) {
  std::string what;
  switch (result.error) {
    case HttpError::resolve_failed:
    case HttpError::connect_refused:
    case HttpError::bad_url: what = "cannot connect"; break;
    case HttpError::tls_verify_failed: what = "cannot connect: the agent's certificate did not verify against --tls-ca-file"; break;
    case HttpError::ca_file_unusable: what = "cannot connect: --tls-ca-file is unusable"; break;
    case HttpError::client_cert_unusable: what = "cannot connect: --tls-client-cert is unusable"; break;
    case HttpError::tls_failed: what = "cannot connect: TLS handshake failed"; break;
    case HttpError::timeout: what = "no answer: timeout"; break;
    case HttpError::too_large: what = "no answer: the report is larger than 64 MiB"; break;
    default: what = "no answer"; break;
  }
  std::string out = what + (result.error_detail.empty() ? "" : ": " + result.error_detail);
  for (char& ch : out)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return out;
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
  const std::string target = (url.path.empty() || url.path == "/" ? "" : url.path) + "/diagnose?format=json";
  const std::string address = (url.tls ? "https://" : "http://") + url.host + ":" + std::to_string(url.port) + target;
  HttpRequestOptions request;  // libcurl: the host name is verified, unlike civetweb's client
  request.ca_file = options.tls_ca_file;
  request.client_cert_file = options.tls_client_cert;  // PEM holding the key too
  request.basic_auth_user = options.basic_auth_user;
  request.basic_auth_password = options.basic_auth_password;
  request.total_timeout = std::chrono::seconds(30);
  request.max_body_bytes = 64u << 20;
  request.headers = {"Accept: application/json"};
  HttpResult result = http_get(address, request);
  if (!result.completed()) {
    out.error = request_error(result);
    return out;
  }
  if (result.status != 200) {
    std::string body = result.body.substr(0, 200);
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
    for (char& ch : body)
      if (ch == '\n' || ch == '\r') ch = ' ';
    out.error = "GET " + target + " answered HTTP " + std::to_string(result.status) + (body.empty() ? "" : ": " + body);
    return out;
  }
  const std::string& body = result.body;
  try {
    out.report = report_from_json(nlohmann::json::parse(body));
  } catch (const std::exception& e) {
    out.error = "not a plegscope report: " + std::string(e.what()).substr(0, 160);
  }
  return out;
}

}  // namespace plegscope
