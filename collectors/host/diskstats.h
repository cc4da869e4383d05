#pragma once
// /proc/diskstats: per-device IO counters, and latency / utilisation between
// two samples (as iostat's await and %util). Pure; the scanner keeps the
// previous sample.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plegscope::host {

struct DiskCounters {
  uint32_t major = 0, minor = 0;
  std::string name;
  uint64_t reads = 0, read_ms = 0;        // fields 4, 7
  uint64_t writes = 0, write_ms = 0;      // 8, 11
  uint64_t in_flight = 0;                 // 12: a gauge
  uint64_t io_ms = 0;                     // 13: time with at least one IO in flight
  uint64_t discards = 0, discard_ms = 0;  // 15, 18 (kernel >= 4.18)
  uint64_t flushes = 0, flush_ms = 0;     // 19, 20 (kernel >= 5.5)
};

// nullopt when a line is malformed or truncated (fewer than 14 fields).
std::optional<std::vector<DiskCounters>> parse_diskstats(std::string_view text);

const DiskCounters* find_disk(const std::vector<DiskCounters>& disks, uint32_t major, uint32_t minor);

struct DiskRates {
  uint64_t completed_ios = 0;
  std::optional<double> latency_ms;  // ms per completed IO; nullopt when none completed
  double utilization = 0;            // share of the interval with an IO in flight, 0..1
  uint64_t in_flight = 0;            // at the second sample
};

// Rates between `before` and `after`, `elapsed` apart. Counters are
// unsigned long in the kernel: on a 32-bit kernel they wrap at 2^32, so a
// counter that went down from below 2^32 has wrapped once; one that went
// down from above 2^32 means the device was replaced (reset): nullopt, as
// for a non-positive interval.
std::optional<DiskRates> disk_rates(const DiskCounters& before, const DiskCounters& after,
                                    std::chrono::nanoseconds elapsed);

}  // namespace plegscope::host
