// libFuzzer target: what a client or an operator controls beyond the query
// string: the Authorization header (parse_basic_authorization) and the
// --web-config-file YAML (parse_web_config). Input: header, NUL, YAML.
// Properties: a parsed credential without ':' in the user name survives the
// client's encoding and back; a refused web config is one line.
#include <cstddef>
#include <cstdint>
#include <string>

#include "http/web/basic_auth.h"
#include "http/web/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  auto nul = input.find('\0');
  std::string header = input.substr(0, nul);
  if (auto creds = plegscope::parse_basic_authorization(header)) {
    if (creds->user.find(':') == std::string::npos) {
      auto again = plegscope::parse_basic_authorization(
          plegscope::basic_authorization(creds->user, creds->password));
      if (!again || again->user != creds->user || again->password != creds->password) __builtin_trap();
    }
  }
  if (nul != std::string::npos) {
    auto outcome = plegscope::parse_web_config(input.substr(nul + 1), "/nonexistent-fuzz-dir");
    if (!outcome.config && outcome.error.find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
