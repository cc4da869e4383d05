#include "http/web/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

namespace plegscope {
namespace {

std::string openssl_error() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

// RequestClientCert and RequireAnyClientCert ask for a certificate but, as
// in Go's crypto/tls, do not judge it.
int accept_any_certificate(int, X509_STORE_CTX*) { return 1; }

}  // namespace

TlsContextOutcome make_server_tls_context(const TlsServerConfig& config) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) return {nullptr, "cannot create a TLS context: " + openssl_error()};
  auto fail = [ctx](const std::string& what) {
    SSL_CTX_free(ctx);
    return TlsContextOutcome{nullptr, what + ": " + openssl_error()};
  };
  int min_version = config.min_version == TlsVersion::Tls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
  if (SSL_CTX_set_min_proto_version(ctx, min_version) != 1) return fail("tls_server_config.min_version");
  if (SSL_CTX_use_certificate_chain_file(ctx, config.cert_file.c_str()) != 1)
    return fail("tls_server_config.cert_file " + config.cert_file);
  if (SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
    return fail("tls_server_config.key_file " + config.key_file);
  if (SSL_CTX_check_private_key(ctx) != 1)
    return fail("tls_server_config.key_file " + config.key_file + " does not match cert_file");

  int mode = SSL_VERIFY_NONE;
  SSL_verify_cb callback = nullptr;
  switch (config.client_auth) {
    case ClientAuth::NoClientCert: break;
    case ClientAuth::RequestClientCert: mode = SSL_VERIFY_PEER; callback = accept_any_certificate; break;
    case ClientAuth::RequireAnyClientCert:
      mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      callback = accept_any_certificate;
      break;
    case ClientAuth::VerifyClientCertIfGiven: mode = SSL_VERIFY_PEER; break;
    case ClientAuth::RequireAndVerifyClientCert: mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT; break;
  }
  if (!config.client_ca_file.empty()) {
    if (SSL_CTX_load_verify_locations(ctx, config.client_ca_file.c_str(), nullptr) != 1)
      return fail("tls_server_config.client_ca_file " + config.client_ca_file);
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(config.client_ca_file.c_str());
    if (!names) return fail("tls_server_config.client_ca_file " + config.client_ca_file);
    SSL_CTX_set_client_CA_list(ctx, names);
  }
  SSL_CTX_set_verify(ctx, mode, callback);
  // Without a session id context, a resumed session with client certificates fails.
  static const unsigned char kSessionContext[] = "plegscope";
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
  return {ctx, ""};
}

void free_tls_context(void* ssl_ctx) { SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx)); }

}  // namespace plegscope
