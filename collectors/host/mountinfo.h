#pragma once
// /proc/<pid>/mountinfo: which mount (and so which device, major:minor)
// holds a path. Pure parser plus the longest-prefix lookup.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plegscope::host {

struct MountEntry {
  uint32_t major = 0, minor = 0;
  std::string root;         // (4) inside the filesystem
  std::string mount_point;  // (5) octal escapes (\040) decoded
  std::string fs_type;      // after the " - " separator
  std::string source;
};

// nullopt when any line is malformed (missing fields, no " - ", bad maj:min).
std::optional<std::vector<MountEntry>> parse_mountinfo(std::string_view text);

// The mount whose mount point is the longest whole-component prefix of
// `path` (absolute, already resolved); of equal mount points the last one
// listed, which is the one on top. nullptr when none (no "/" mount).
const MountEntry* mount_for_path(const std::vector<MountEntry>& mounts, std::string_view path);

}  // namespace plegscope::host
