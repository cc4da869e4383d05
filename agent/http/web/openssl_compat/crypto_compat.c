/* civetweb also dlopens the unversioned "libcrypto.so", which only the
 * -dev package provides; this library stands in for it and depends on the
 * real libcrypto.so.3, where every symbol civetweb looks up is found. */
void plegscope_libcrypto_compat(void);
void plegscope_libcrypto_compat(void) {}
