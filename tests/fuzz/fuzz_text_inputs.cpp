// libFuzzer target for every text parser fed from outside: HTTP query
// strings, Go durations (flags), /proc files (node pressure).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/go_duration.h"
#include "http/server.h"
#include "host/node_pressure.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  plegscope::parse_query(text);
  if (auto d = plegscope::parse_go_duration(text)) {
    // Whatever parses must format, and the formatted form must parse back.
    std::string formatted = plegscope::format_go_duration(*d);
    if (!plegscope::parse_go_duration(formatted)) __builtin_trap();
  }
  plegscope::parse_psi(text);
  plegscope::parse_loadavg(text);
  plegscope::parse_single_int(text);
  plegscope::parse_stat_cpus(text);
  return 0;
}
