#pragma once
// A cgroup's pressure file (cpu.pressure, io.pressure, memory.pressure):
//   some avg10=0.00 avg60=0.00 avg300=0.00 total=123456
//   full avg10=0.00 avg60=0.00 avg300=0.00 total=2345
// Only the exact `total` counters (microseconds stalled) are kept: the
// readers take their delta between two scans, which the averages cannot
// give for an interval of our choosing. Pure.
#include <cstdint>
#include <optional>
#include <string_view>

namespace plegscope::host {

struct PsiTotals {
  uint64_t some_us = 0;
  std::optional<uint64_t> full_us;  // nullopt: cpu.pressure before Linux 5.13
};

// nullopt when no "some" line with a total, or any line malformed.
std::optional<PsiTotals> parse_psi_totals(std::string_view text);

}  // namespace plegscope::host
