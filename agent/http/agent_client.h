#pragma once
// The client side of /diagnose: `plegscope diagnose --url` fetches a running
// agent's report with libcurl (collectors/scrape: host names verified), over plain HTTP or TLS, with basic
// auth when given.
#include <optional>
#include <string>

#include "diagnoser/report.h"

namespace plegscope {

struct HttpUrl {
  bool tls = false;  // https
  std::string host;
  int port = 80;
  std::string path;  // "" when the URL has none
};
// "http://HOST[:PORT][/PATH]" or "https://..." (port 443 unless given);
// nullopt for anything else.
std::optional<HttpUrl> parse_agent_url(const std::string& url);
// Plain "http://" only.
std::optional<HttpUrl> parse_http_url(const std::string& url);

struct AgentClientOptions {
  std::string tls_ca_file;      // verifies the agent's certificate (https)
  std::string tls_client_cert;  // PEM with certificate and key, for mutual TLS
  std::string basic_auth_user;  // empty: no Authorization header
  std::string basic_auth_password;
};

struct FetchedReport {
  std::optional<Report> report;
  std::string error;  // one line, when report is empty
};

// GET <url>/diagnose?format=json, parsed. Thread-safe.
FetchedReport fetch_report(const HttpUrl& url, const AgentClientOptions& options);

}  // namespace plegscope
