#include "host/pod_cgroup.h"

#include <cctype>

namespace plegscope::host {
namespace {

constexpr size_t kUidLength = 36;  // 8-4-4-4-12 hex digits and separators

// A uid at the start of `s`, its separators '-' (cgroupfs) or '_' (systemd).
std::optional<std::string> uid_at(std::string_view s) {
  if (s.size() < kUidLength) return std::nullopt;
  std::string uid(s.substr(0, kUidLength));
  for (size_t i = 0; i < kUidLength; ++i) {
    const bool separator = i == 8 || i == 13 || i == 18 || i == 23;
    char& ch = uid[i];
    if (separator) {
      if (ch != '-' && ch != '_') return std::nullopt;
      ch = '-';
    } else if (!std::isxdigit(static_cast<unsigned char>(ch))) {
      return std::nullopt;
    }
  }
  // The uid ends its path component: "/", ".slice", or the end.
  if (s.size() > kUidLength && s[kUidLength] != '/' && s[kUidLength] != '.' && s[kUidLength] != '\n')
    return std::nullopt;
  return uid;
}

}  // namespace

std::optional<std::string> pod_uid_from_cgroup(std::string_view text) {
  // Only lines under a kubepods hierarchy: "pod" alone is too common a word.
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const size_t kubepods = line.find("kubepods");
    if (kubepods == std::string_view::npos) continue;
    for (size_t p = line.find("pod", kubepods + 8); p != std::string_view::npos; p = line.find("pod", p + 3))
      if (auto uid = uid_at(line.substr(p + 3))) return uid;
  }
  return std::nullopt;
}

}  // namespace plegscope::host
