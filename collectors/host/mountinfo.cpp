#include "host/mountinfo.h"

namespace plegscope::host {
namespace {

std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out.push_back(static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

bool parse_u32(std::string_view s, uint32_t& out) {
  if (s.empty() || s.size() > 10) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > UINT32_MAX) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (at < line.size()) {
    size_t start = line.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    size_t end = line.find(' ', start);
    if (end == std::string_view::npos) end = line.size();
    out.push_back(line.substr(start, end - start));
    at = end;
  }
  return out;
}

}  // namespace

std::optional<std::vector<MountEntry>> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? text.npos : end - at);
    at = end == std::string_view::npos ? text.size() : end + 1;
    if (line.empty()) continue;
    auto w = words(line);
    // id parent maj:min root mount_point options [optional...] - fstype source superopts
    size_t dash = 6;
    while (dash < w.size() && w[dash] != "-") ++dash;
    if (w.size() < 6 || dash + 2 >= w.size()) return std::nullopt;  // no " - fstype source"
    MountEntry m;
    size_t colon = w[2].find(':');
    if (colon == std::string_view::npos || !parse_u32(w[2].substr(0, colon), m.major) ||
        !parse_u32(w[2].substr(colon + 1), m.minor))
      return std::nullopt;
    m.root = unescape(w[3]);
    m.mount_point = unescape(w[4]);
    if (m.mount_point.empty() || m.mount_point[0] != '/') return std::nullopt;
    m.fs_type = std::string(w[dash + 1]);
    m.source = std::string(w[dash + 2]);
    mounts.push_back(std::move(m));
  }
  if (mounts.empty()) return std::nullopt;
  return mounts;
}

const MountEntry* mount_for_path(const std::vector<MountEntry>& mounts, std::string_view path) {
  const MountEntry* best = nullptr;
  for (const auto& m : mounts) {
    std::string_view mp = m.mount_point;
    bool covers = mp == "/" || path == mp ||
                  (path.size() > mp.size() && path.compare(0, mp.size(), mp) == 0 && path[mp.size()] == '/');
    if (covers && (!best || mp.size() >= best->mount_point.size())) best = &m;
  }
  return best;
}

}  // namespace plegscope::host
