#pragma once
// The server's TLS context, built with OpenSSL from tls_server_config and
// handed to civetweb (which then does the handshakes and the I/O). Building
// it ourselves gives the exporter-toolkit's separate cert_file/key_file and
// all five client_auth_type modes, which civetweb's own options cannot say.
#include <string>

#include "http/web/web_config.h"

namespace plegscope {

struct TlsContextOutcome {
  void* ssl_ctx = nullptr;  // SSL_CTX*, owned by the caller; null on error
  std::string error;        // one line naming the file or setting at fault
};

TlsContextOutcome make_server_tls_context(const TlsServerConfig& config);

// Frees what make_server_tls_context returned.
void free_tls_context(void* ssl_ctx);

}  // namespace plegscope
