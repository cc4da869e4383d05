// --web-config-file parsing (exporter-toolkit format).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

#include "http/web/web_config.h"

#include "http/web/bcrypt_hashes.h"

namespace plegscope {
namespace {

using testing::kOtherHash;
using testing::kSecretHash;

// A directory with empty stand-ins for cert, key and CA files.
class WebConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/plegscope-webconfig-XXXXXX";
    dir_ = mkdtemp(tmpl);
    for (const char* name : {"cert.pem", "key.pem", "ca.pem"}) std::ofstream(dir_ + "/" + name) << "x\n";
  }
  void TearDown() override {
    for (const char* name : {"cert.pem", "key.pem", "ca.pem"}) std::remove((dir_ + "/" + name).c_str());
    rmdir(dir_.c_str());
  }
  WebConfigOutcome parse(const std::string& yaml) { return parse_web_config(yaml, dir_); }
  std::string error_of(const std::string& yaml) {
    auto out = parse(yaml);
    EXPECT_FALSE(out.config) << yaml;
    EXPECT_EQ(out.error.find('\n'), std::string::npos) << out.error;
    return out.error;
  }
  std::string dir_;
};

TEST_F(WebConfigTest, FullToolkitFile) {
  auto out = parse(
      "tls_server_config:\n"
      "  cert_file: cert.pem\n"
      "  key_file: " + dir_ + "/key.pem\n"
      "  client_auth_type: RequireAndVerifyClientCert\n"
      "  client_ca_file: ca.pem\n"
      "  min_version: TLS13\n"
      "http_server_config:\n"
      "  headers:\n"
      "    x-frame-options: deny\n"
      "    Strict-Transport-Security: max-age=31536000\n"
      "basic_auth_users:\n"
      "  alice: " + kSecretHash + "\n"
      "  bob: '" + kOtherHash + "'\n");
  ASSERT_TRUE(out.config) << out.error;
  const WebConfig& c = *out.config;
  ASSERT_TRUE(c.tls);
  EXPECT_EQ(c.tls->cert_file, dir_ + "/cert.pem");  // relative to the file's directory
  EXPECT_EQ(c.tls->key_file, dir_ + "/key.pem");
  EXPECT_EQ(c.tls->client_ca_file, dir_ + "/ca.pem");
  EXPECT_EQ(c.tls->client_auth, ClientAuth::RequireAndVerifyClientCert);
  EXPECT_EQ(c.tls->min_version, TlsVersion::Tls13);
  EXPECT_EQ(c.basic_auth_users.size(), 2u);
  EXPECT_EQ(c.basic_auth_users.at("bob"), kOtherHash);
  ASSERT_EQ(c.headers.size(), 2u);
  EXPECT_EQ(c.headers[0], (std::pair<std::string, std::string>{"X-Frame-Options", "deny"}));
}

TEST_F(WebConfigTest, EmptyFileAndEmptyTlsMeanPlainHttpWithoutAuth) {
  for (const char* yaml : {"", "tls_server_config: {}\n", "tls_server_config:\nbasic_auth_users:\n"}) {
    auto out = parse(yaml);
    ASSERT_TRUE(out.config) << yaml << ": " << out.error;
    EXPECT_FALSE(out.config->tls);
    EXPECT_TRUE(out.config->basic_auth_users.empty());
  }
}

TEST_F(WebConfigTest, DefaultsAreNoClientCertAndTls12) {
  auto out = parse("tls_server_config: {cert_file: cert.pem, key_file: key.pem}\n");
  ASSERT_TRUE(out.config) << out.error;
  EXPECT_EQ(out.config->tls->client_auth, ClientAuth::NoClientCert);
  EXPECT_EQ(out.config->tls->min_version, TlsVersion::Tls12);
}

TEST_F(WebConfigTest, EveryClientAuthTypeOfTheToolkit) {
  for (const char* type : {"NoClientCert", "RequestClientCert", "RequireAnyClientCert"})
    EXPECT_TRUE(parse(std::string("tls_server_config: {cert_file: cert.pem, key_file: key.pem, client_auth_type: ") +
                      type + "}\n").config) << type;
  for (const char* type : {"VerifyClientCertIfGiven", "RequireAndVerifyClientCert"})
    EXPECT_TRUE(parse(std::string("tls_server_config: {cert_file: cert.pem, key_file: key.pem, client_ca_file: ca.pem, "
                                  "client_auth_type: ") + type + "}\n").config) << type;
}

TEST_F(WebConfigTest, BadFilesAreOneLineErrorsNamingTheKey) {
  const std::string tls = "tls_server_config: {cert_file: cert.pem, key_file: key.pem";
  EXPECT_NE(error_of("tls_server_config: [\n").find("invalid YAML"), std::string::npos);
  EXPECT_NE(error_of("tls_config: {}\n").find("tls_config: unknown key"), std::string::npos);
  EXPECT_NE(error_of(tls + ", cert_fiel: x}\n").find("tls_server_config.cert_fiel: unknown key"), std::string::npos);
  EXPECT_NE(error_of(tls + ", cipher_suites: [x]}\n").find("cipher_suites: not supported"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config: {cert_file: nope.pem, key_file: key.pem}\n").find("cert_file: cannot read"),
            std::string::npos);
  EXPECT_NE(error_of("tls_server_config: {cert_file: cert.pem}\n").find("cert_file and key_file"), std::string::npos);
  EXPECT_NE(error_of(tls + ", client_auth_type: Always}\n").find("client_auth_type: invalid value \"Always\""),
            std::string::npos);
  EXPECT_NE(error_of(tls + ", client_auth_type: RequireAndVerifyClientCert}\n").find("client_ca_file: required"),
            std::string::npos);
  EXPECT_NE(error_of(tls + ", client_ca_file: ca.pem}\n").find("client_ca_file"), std::string::npos);
  EXPECT_NE(error_of(tls + ", min_version: TLS10}\n").find("min_version: invalid value"), std::string::npos);
  EXPECT_NE(error_of("basic_auth_users: {alice: secret}\n").find("basic_auth_users.alice: not a bcrypt hash"),
            std::string::npos);
  EXPECT_NE(error_of("basic_auth_users: {alice: '$1$abc$0123456789012345678901'}\n").find("not a bcrypt hash"),
            std::string::npos);
  EXPECT_NE(error_of("basic_auth_users: {'a:b': '" + kSecretHash + "'}\n").find("without ':'"), std::string::npos);
  EXPECT_NE(error_of("basic_auth_users: [alice]\n").find("basic_auth_users: expected a mapping"), std::string::npos);
  EXPECT_NE(error_of("http_server_config: {headers: {Server: x}}\n").find("headers.Server: this header cannot"),
            std::string::npos);
  EXPECT_NE(error_of("http_server_config: {headers: {X-Frame-Options: allow}}\n").find("invalid value"),
            std::string::npos);
  EXPECT_NE(error_of("http_server_config: {http2: true}\n").find("http2: not supported"), std::string::npos);
  EXPECT_NE(error_of("http_server_config: {timeout: 1}\n").find("http_server_config.timeout: unknown key"),
            std::string::npos);
}

TEST_F(WebConfigTest, MissingFileNamesThePath) {
  auto out = load_web_config(dir_ + "/absent.yml");
  EXPECT_FALSE(out.config);
  EXPECT_NE(out.error.find(dir_ + "/absent.yml"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace plegscope
