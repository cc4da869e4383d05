#include "http/web/web_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "http/web/basic_auth.h"

namespace plegscope {
namespace {

struct ConfigError {
  std::string message;
};

// The toolkit's keys that plegscope does not implement: named as such, so
// an operator is not told a real toolkit key is a typo.
const std::set<std::string> kUnsupportedTlsKeys = {
    "cert", "key", "client_ca", "max_version", "cipher_suites", "curve_preferences",
    "prefer_server_cipher_suites", "client_allowed_sans"};

// The headers (and, where the toolkit restricts them, the values) the
// exporter-toolkit lets an operator add.
const std::map<std::string, std::vector<std::string>> kAllowedHeaders = {
    {"Strict-Transport-Security", {}},
    {"X-Content-Type-Options", {"nosniff"}},
    {"X-Frame-Options", {"deny", "sameorigin"}},
    {"X-XSS-Protection", {}},
    {"Content-Security-Policy", {}},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

void expect_map(const YAML::Node& node, const std::string& where) {
  if (!node.IsMap() && !node.IsNull())
    throw ConfigError{where + ": expected a mapping"};
}

std::string scalar(const YAML::Node& node, const std::string& where) {
  if (!node.IsScalar()) throw ConfigError{where + ": expected a string"};
  return node.as<std::string>();
}

std::string resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path.front() == '/' || base_dir.empty()) return path;
  return base_dir + "/" + path;
}

std::string readable_file(const YAML::Node& node, const std::string& where, const std::string& base_dir) {
  std::string path = resolve(scalar(node, where), base_dir);
  if (path.empty()) throw ConfigError{where + ": empty file name"};
  std::ifstream in(path);
  if (!in) throw ConfigError{where + ": cannot read " + path + ": " + std::strerror(errno)};
  return path;
}

ClientAuth client_auth_from(const std::string& text) {
  static const std::map<std::string, ClientAuth> kNames = {
      {"NoClientCert", ClientAuth::NoClientCert},
      {"RequestClientCert", ClientAuth::RequestClientCert},
      {"RequireAnyClientCert", ClientAuth::RequireAnyClientCert},
      {"VerifyClientCertIfGiven", ClientAuth::VerifyClientCertIfGiven},
      {"RequireAndVerifyClientCert", ClientAuth::RequireAndVerifyClientCert}};
  auto it = kNames.find(text);
  if (it == kNames.end())
    throw ConfigError{"tls_server_config.client_auth_type: invalid value \"" + text +
                      "\" (expected NoClientCert, RequestClientCert, RequireAnyClientCert, "
                      "VerifyClientCertIfGiven or RequireAndVerifyClientCert)"};
  return it->second;
}

std::optional<TlsServerConfig> parse_tls(const YAML::Node& node, const std::string& base_dir) {
  expect_map(node, "tls_server_config");
  if (node.IsNull() || node.size() == 0) return std::nullopt;  // the toolkit's "no TLS"
  TlsServerConfig tls;
  bool have_auth_type = false;
  for (const auto& entry : node) {
    std::string key = entry.first.as<std::string>();
    std::string where = "tls_server_config." + key;
    if (key == "cert_file") tls.cert_file = readable_file(entry.second, where, base_dir);
    else if (key == "key_file") tls.key_file = readable_file(entry.second, where, base_dir);
    else if (key == "client_ca_file") tls.client_ca_file = readable_file(entry.second, where, base_dir);
    else if (key == "client_auth_type") {
      tls.client_auth = client_auth_from(scalar(entry.second, where));
      have_auth_type = true;
    } else if (key == "min_version") {
      std::string v = scalar(entry.second, where);
      if (v == "TLS12") tls.min_version = TlsVersion::Tls12;
      else if (v == "TLS13") tls.min_version = TlsVersion::Tls13;
      else throw ConfigError{where + ": invalid value \"" + v + "\" (expected TLS12 or TLS13)"};
    } else if (kUnsupportedTlsKeys.count(key)) {
      throw ConfigError{where + ": not supported by plegscope"};
    } else {
      throw ConfigError{where + ": unknown key"};
    }
  }
  if (tls.cert_file.empty() || tls.key_file.empty())
    throw ConfigError{"tls_server_config: cert_file and key_file are both required"};
  bool verifies = tls.client_auth == ClientAuth::VerifyClientCertIfGiven ||
                  tls.client_auth == ClientAuth::RequireAndVerifyClientCert;
  if (verifies && tls.client_ca_file.empty())
    throw ConfigError{"tls_server_config.client_ca_file: required when client_auth_type verifies client certificates"};
  if (!verifies && !tls.client_ca_file.empty())
    throw ConfigError{"tls_server_config.client_ca_file: set, but client_auth_type " +
                      std::string(have_auth_type ? "does not verify client certificates"
                                                 : "is missing (e.g. RequireAndVerifyClientCert)")};
  return tls;
}

std::vector<std::pair<std::string, std::string>> parse_http(const YAML::Node& node) {
  expect_map(node, "http_server_config");
  std::vector<std::pair<std::string, std::string>> headers;
  if (node.IsNull()) return headers;
  for (const auto& entry : node) {
    std::string key = entry.first.as<std::string>();
    if (key == "http2") {
      if (entry.second.IsScalar() && lower(entry.second.as<std::string>()) == "false") continue;
      throw ConfigError{"http_server_config.http2: not supported by plegscope (HTTP/1.1 only); use false"};
    }
    if (key != "headers") throw ConfigError{"http_server_config." + key + ": unknown key"};
    expect_map(entry.second, "http_server_config.headers");
    for (const auto& header : entry.second) {
      std::string name = header.first.as<std::string>();
      std::string where = "http_server_config.headers." + name;
      auto allowed = std::find_if(kAllowedHeaders.begin(), kAllowedHeaders.end(),
                                  [&](const auto& a) { return lower(a.first) == lower(name); });
      if (allowed == kAllowedHeaders.end())
        throw ConfigError{where + ": this header cannot be configured (allowed: Strict-Transport-Security, "
                                  "X-Content-Type-Options, X-Frame-Options, X-XSS-Protection, Content-Security-Policy)"};
      std::string value = scalar(header.second, where);
      if (value.find_first_of("\r\n") != std::string::npos || value.empty())
        throw ConfigError{where + ": value must be one non-empty line"};
      const auto& values = allowed->second;
      if (!values.empty() && std::find(values.begin(), values.end(), lower(value)) == values.end())
        throw ConfigError{where + ": invalid value \"" + value + "\""};
      headers.emplace_back(allowed->first, value);
    }
  }
  return headers;
}

std::map<std::string, std::string> parse_users(const YAML::Node& node) {
  expect_map(node, "basic_auth_users");
  std::map<std::string, std::string> users;
  if (node.IsNull()) return users;
  for (const auto& entry : node) {
    std::string user = entry.first.as<std::string>();
    std::string where = "basic_auth_users." + user;
    if (user.empty() || user.find(':') != std::string::npos)
      throw ConfigError{"basic_auth_users: user name \"" + user + "\" must be non-empty and without ':'"};
    std::string hash = scalar(entry.second, where);
    if (!is_bcrypt_hash(hash))
      throw ConfigError{where + ": not a bcrypt hash (expected $2a$, $2b$ or $2y$, e.g. from htpasswd -nbBC 10)"};
    users[user] = hash;
  }
  return users;
}

}  // namespace

WebConfigOutcome parse_web_config(const std::string& yaml_text, const std::string& base_dir) {
  WebConfigOutcome out;
  try {
    YAML::Node root = YAML::Load(yaml_text);
    expect_map(root, "web config");
    WebConfig config;
    if (root.IsMap()) {
      for (const auto& entry : root) {
        std::string key = entry.first.as<std::string>();
        if (key == "tls_server_config") config.tls = parse_tls(entry.second, base_dir);
        else if (key == "http_server_config") config.headers = parse_http(entry.second);
        else if (key == "basic_auth_users") config.basic_auth_users = parse_users(entry.second);
        else throw ConfigError{key + ": unknown key"};
      }
    }
    out.config = std::move(config);
  } catch (const ConfigError& e) {
    out.error = e.message;
  } catch (const YAML::Exception& e) {
    out.error = std::string("invalid YAML: ") + e.what();
  }
  // Messages quote keys and values from the file, which may span lines.
  std::replace(out.error.begin(), out.error.end(), '\n', ' ');
  std::replace(out.error.begin(), out.error.end(), '\r', ' ');
  return out;
}

WebConfigOutcome load_web_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {std::nullopt, "cannot read " + path + ": " + std::strerror(errno)};
  std::stringstream text;
  text << in.rdbuf();
  auto slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  auto out = parse_web_config(text.str(), dir);
  if (!out.config) out.error = path + ": " + out.error;
  return out;
}

}  // namespace plegscope
