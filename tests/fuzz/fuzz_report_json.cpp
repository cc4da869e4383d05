// libFuzzer target: the /diagnose JSON as `plegscope diagnose --url` reads it
// back. Whatever report_from_json accepts must survive a round trip:
// written out and read again, it writes out the same.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>

#include "report/json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return 0;
  plegscope::Report report;
  try {
    report = plegscope::report_from_json(parsed);
  } catch (const nlohmann::json::exception&) {
    return 0;  // not a §6 report: `diagnose --url` says so and exits 2
  } catch (const std::invalid_argument&) {
    return 0;
  }
  nlohmann::json first = plegscope::report_to_json(report);
  nlohmann::json second = plegscope::report_to_json(plegscope::report_from_json(first));
  if (first != second) __builtin_trap();
  return 0;
}
