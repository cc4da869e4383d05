#pragma once
// --web-config-file: the Prometheus exporter-toolkit format, so a file an
// operator already wrote for node_exporter works here unchanged:
//
//   tls_server_config: {cert_file, key_file, client_auth_type, client_ca_file, min_version}
//   http_server_config: {headers: {Header: value}}
//   basic_auth_users: {user: bcrypt hash}
//
// Parsing is pure (text in, config or one-line error out); relative paths are
// resolved against the file's directory, as the toolkit does.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace plegscope {

enum class ClientAuth {
  NoClientCert,
  RequestClientCert,           // asked for, never verified
  RequireAnyClientCert,        // required, never verified
  VerifyClientCertIfGiven,     // verified against client_ca_file when sent
  RequireAndVerifyClientCert,  // required and verified (mutual TLS)
};

enum class TlsVersion { Tls12, Tls13 };

struct TlsServerConfig {
  std::string cert_file;
  std::string key_file;
  ClientAuth client_auth = ClientAuth::NoClientCert;
  std::string client_ca_file;  // empty unless a client certificate is verified
  TlsVersion min_version = TlsVersion::Tls12;
};

struct WebConfig {
  std::optional<TlsServerConfig> tls;                 // empty: plain HTTP
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash; empty: no auth
  std::vector<std::pair<std::string, std::string>> headers;  // added to every response
};

struct WebConfigOutcome {
  std::optional<WebConfig> config;
  std::string error;  // one line naming the key or file at fault, when config is empty
};

// `base_dir` resolves relative file names; files named in the config must be
// readable (checked here so a typo fails at start-up, not at the first scrape).
WebConfigOutcome parse_web_config(const std::string& yaml_text, const std::string& base_dir);

// Reads and parses `path`.
WebConfigOutcome load_web_config(const std::string& path);

}  // namespace plegscope
