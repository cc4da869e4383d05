#pragma once
// Reading one small pseudo-file (/proc, /sys) in a single bounded read, with
// the reason when it cannot be read, so each part of the host evidence can say
// "unreadable: <why>" instead of failing the scan.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <string>

namespace plegscope::host {

struct FileText {
  bool ok = false;
  std::string text;   // the bytes read (possibly truncated at the bound)
  std::string error;  // "<path>: <strerror>" when !ok
};

// Reads at most `limit` bytes. A missing file, a permission error and a
// vanished process are all !ok with the errno text.
FileText read_small_file(const std::string& path, size_t limit = 64 * 1024);

// Same, into a caller-owned buffer (the per-process hot path reuses one
// buffer). Returns the byte count, or -1 with errno set.
long read_into(const std::string& path, char* buffer, size_t size);
// One open and ONE read, `relative` to an open directory (the scan's /proc):
// procfs hands a whole stat line to a single read when the buffer holds it,
// so the hot path spends open+read+close per process and walks two path
// components, not four. Not for files that may need several reads.
long read_into_at(int dir_fd, const char* relative, char* buffer, size_t size);

// A decimal counter as /proc and /sys print it: digits only, no sign, no
// overflow past 64 bits. false leaves `out` unchanged.
bool parse_u64(std::string_view s, uint64_t& out);

// The text helpers every /proc parser here shares.
std::string_view trim(std::string_view s);  // white space off both ends
inline bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}
// Calls `line` with each non-empty line of `text`, trimmed, until it returns
// false; false then, true when every line was taken.
template <typename Line>
bool each_line(std::string_view text, Line&& line) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view one = trim(text.substr(at, end - at));
    at = end + 1;
    if (!one.empty() && !line(one)) return false;
  }
  return true;
}

}  // namespace plegscope::host
