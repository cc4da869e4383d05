#include "host/diskstats.h"

#include <algorithm>

#include "host/host_files.h"

namespace plegscope::host {
namespace {

// after - before for a kernel counter; false on a reset.
bool counter_delta(uint64_t before, uint64_t after, uint64_t& delta) {
  if (after >= before) {
    delta = after - before;
    return true;
  }
  constexpr uint64_t kWrap32 = uint64_t{1} << 32;
  if (before < kWrap32) {
    delta = after + kWrap32 - before;
    return true;
  }
  return false;
}

}  // namespace

std::optional<std::vector<DiskCounters>> parse_diskstats(std::string_view text) {
  std::vector<DiskCounters> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? text.npos : end - at);
    at = end == std::string_view::npos ? text.size() : end + 1;
    std::string_view f[20];
    size_t n = 0, pos = 0;
    while (pos < line.size()) {
      size_t start = line.find_first_not_of(' ', pos);
      if (start == std::string_view::npos) break;
      size_t stop = line.find(' ', start);
      if (stop == std::string_view::npos) stop = line.size();
      if (n == 20) return std::nullopt;  // more fields than any kernel writes
      f[n++] = line.substr(start, stop - start);
      pos = stop;
    }
    if (n == 0) continue;
    if (n < 14) return std::nullopt;
    DiskCounters d;
    uint64_t major = 0, minor = 0;
    if (!parse_u64(f[0], major) || !parse_u64(f[1], minor) || major > UINT32_MAX || minor > UINT32_MAX)
      return std::nullopt;
    d.major = static_cast<uint32_t>(major);
    d.minor = static_cast<uint32_t>(minor);
    d.name = std::string(f[2]);
    uint64_t v[17] = {};
    for (size_t i = 3; i < n; ++i)
      if (!parse_u64(f[i], v[i - 3])) return std::nullopt;
    d.reads = v[0];
    d.read_ms = v[3];
    d.writes = v[4];
    d.write_ms = v[7];
    d.in_flight = v[8];
    d.io_ms = v[9];
    d.discards = v[11];
    d.discard_ms = v[14];
    d.flushes = v[15];
    d.flush_ms = v[16];
    out.push_back(std::move(d));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

const DiskCounters* find_disk(const std::vector<DiskCounters>& disks, uint32_t major, uint32_t minor) {
  auto it = std::find_if(disks.begin(), disks.end(),
                         [&](const DiskCounters& d) { return d.major == major && d.minor == minor; });
  return it == disks.end() ? nullptr : &*it;
}

std::optional<DiskRates> disk_rates(const DiskCounters& before, const DiskCounters& after,
                                    std::chrono::nanoseconds elapsed) {
  if (elapsed.count() <= 0) return std::nullopt;
  uint64_t d[9];
  const uint64_t pairs[9][2] = {{before.reads, after.reads},           {before.writes, after.writes},
                                {before.discards, after.discards},     {before.flushes, after.flushes},
                                {before.read_ms, after.read_ms},       {before.write_ms, after.write_ms},
                                {before.discard_ms, after.discard_ms}, {before.flush_ms, after.flush_ms},
                                {before.io_ms, after.io_ms}};
  for (int i = 0; i < 9; ++i)
    if (!counter_delta(pairs[i][0], pairs[i][1], d[i])) return std::nullopt;
  DiskRates r;
  r.completed_ios = d[0] + d[1] + d[2] + d[3];
  if (r.completed_ios > 0)
    r.latency_ms = static_cast<double>(d[4] + d[5] + d[6] + d[7]) / static_cast<double>(r.completed_ios);
  double elapsed_ms = std::chrono::duration<double, std::milli>(elapsed).count();
  r.utilization = std::min(1.0, static_cast<double>(d[8]) / elapsed_ms);
  r.in_flight = after.in_flight;
  return r;
}

}  // namespace plegscope::host
