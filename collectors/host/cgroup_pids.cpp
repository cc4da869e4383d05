#include "host/cgroup_pids.h"

#include "host/host_files.h"

namespace plegscope::host {
namespace {

std::optional<int64_t> parse_count(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool has_controller(std::string_view list, std::string_view name) {
  size_t at = 0;
  while (at <= list.size()) {
    size_t end = list.find(',', at);
    if (end == std::string_view::npos) end = list.size();
    if (list.substr(at, end - at) == name) return true;
    at = end + 1;
  }
  return false;
}

std::string join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + "/" + b;
}

}  // namespace

std::optional<CgroupPaths> parse_proc_cgroup(std::string_view text) {
  CgroupPaths out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? text.npos : end - at);
    at = end == std::string_view::npos ? text.size() : end + 1;
    if (line.empty()) continue;
    size_t c1 = line.find(':');
    size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) return std::nullopt;
    std::string_view id = line.substr(0, c1), controllers = line.substr(c1 + 1, c2 - c1 - 1);
    std::string_view path = line.substr(c2 + 1);
    if (id.empty() || path.empty() || path[0] != '/') return std::nullopt;
    if (id == "0" && controllers.empty()) out.unified = std::string(path);
    else if (has_controller(controllers, "pids")) out.v1_pids = std::string(path);
  }
  if (!out.unified && !out.v1_pids) return std::nullopt;
  return out;
}

std::optional<PidsMax> parse_pids_max(std::string_view text) {
  if (trim(text) == "max") return PidsMax{};
  auto v = parse_count(text);
  if (!v) return std::nullopt;
  return PidsMax{v};
}

std::optional<int64_t> parse_pids_current(std::string_view text) { return parse_count(text); }

std::optional<PidsUsage> read_pids_usage(const std::string& sys_path, const std::string& hierarchy_root,
                                         const std::string& cgroup_dir, std::string& error) {
  const std::string base = sys_path + "/fs/cgroup/";
  auto current_file = read_small_file(base + join(cgroup_dir, "pids.current"), 256);
  if (!current_file.ok) {
    error = current_file.error;
    return std::nullopt;
  }
  auto current = parse_pids_current(current_file.text);
  if (!current) {
    error = base + join(cgroup_dir, "pids.current") + ": malformed";
    return std::nullopt;
  }
  PidsUsage usage;
  usage.cgroup = cgroup_dir;
  usage.current = *current;
  std::optional<int64_t> best_headroom;
  // Walk up: <dir>, its parent, ... down to (not past) the hierarchy root,
  // whose pids.max does not exist (the root cgroup is never limited).
  std::string dir = cgroup_dir;
  while (dir.size() > hierarchy_root.size()) {
    auto max_file = read_small_file(base + join(dir, "pids.max"), 256);
    auto max = max_file.ok ? parse_pids_max(max_file.text) : std::nullopt;
    if (!max) {
      if (dir == cgroup_dir) {
        error = max_file.ok ? base + join(dir, "pids.max") + ": malformed" : max_file.error;
        return std::nullopt;
      }
      break;  // an ancestor we cannot read: keep what the closer ones said
    }
    if (max->limit) {
      int64_t used = usage.current;
      if (dir != cgroup_dir) {
        auto ancestor_current = read_small_file(base + join(dir, "pids.current"), 256);
        if (auto c = ancestor_current.ok ? parse_pids_current(ancestor_current.text) : std::nullopt) used = *c;
      }
      int64_t headroom = *max->limit - used;
      if (!best_headroom || headroom < *best_headroom) {
        best_headroom = headroom;
        // Report the binding level's own figures: its usage against its max.
        usage.max = *max->limit;
        usage.current = used;
        usage.limited_by = dir;
      }
    }
    size_t slash = dir.rfind('/');
    if (slash == std::string::npos) break;
    dir.resize(slash);
  }
  return usage;
}

}  // namespace plegscope::host
