/* Debian 12's civetweb (1.15) was built against the OpenSSL 1.1 API and
 * loads "libssl.so" and "libcrypto.so" with dlopen at run time. Debian 12
 * ships only OpenSSL 3, where SSL_get_peer_certificate is no longer an
 * exported function (it became a macro for SSL_get1_peer_certificate), so
 * civetweb's loader fails and HTTPS is off. This library is found first
 * through plegscope's RPATH, exports that one old name, and pulls in the
 * real libssl.so.3 for everything else; it contains no cryptography. */
#include <openssl/ssl.h>

#undef SSL_get_peer_certificate
X509 *SSL_get_peer_certificate(const SSL *ssl);
X509 *SSL_get_peer_certificate(const SSL *ssl) { return SSL_get1_peer_certificate(ssl); }
