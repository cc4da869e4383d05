#pragma once
// `plegscope diagnose`: one report, printed, then exit.
//   - against the runtime: a Monitor relists for --duration, then reports;
//   - with --url: fetches a running agent's /diagnose?format=json and renders
//     it here.
// Exit status: 0 healthy, 1 at risk or unhealthy, 2 usage or connection error.
#include <optional>
#include <string>

#include "config.h"

namespace plegscope {

int run_diagnose(const Config& config);

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

}  // namespace plegscope
