#include "host/cgroup_v2_names.h"

#include <cctype>

#include "host/host_files.h"
#include "host/pod_cgroup.h"

namespace plegscope::host {
namespace {

bool hex_id(std::string_view s) {
  if (s.size() < 12 || s.size() > 128) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

CgroupName classify_cgroup_name(std::string_view name) {
  CgroupName out;
  if (name == "burstable" || name == "besteffort" || name == "kubepods-burstable.slice" ||
      name == "kubepods-besteffort.slice") {
    out.kind = CgroupName::Kind::kQos;
    return out;
  }
  // systemd: "<prefix><id>.scope"; cgroupfs: "<id>", or CRI-O's "crio-<id>".
  std::string_view stem = ends_with(name, ".scope") ? name.substr(0, name.size() - 6) : name;
  static constexpr std::pair<std::string_view, CgroupName::Kind> kPrefixes[] = {
      {"crio-conmon-", CgroupName::Kind::kConmon},
      {"cri-containerd-", CgroupName::Kind::kContainer},
      {"crio-", CgroupName::Kind::kContainer},
      {"docker-", CgroupName::Kind::kContainer},
      {"", CgroupName::Kind::kContainer}};
  for (const auto& [prefix, kind] : kPrefixes)
    if (starts_with(stem, prefix) && hex_id(stem.substr(prefix.size()))) {
      out.kind = kind;
      out.container_id = std::string(stem.substr(prefix.size()));
      return out;
    }
  if (stem.size() != name.size()) return out;  // another .scope
  // pod<uid> (cgroupfs) or kubepods[-<qos>]-pod<uid_>.slice (systemd): the
  // pod parser wants a kubepods line, which a systemd name has and a
  // cgroupfs one gets from its parent.
  const std::string line = starts_with(name, "kubepods") ? std::string(name) : "/kubepods/" + std::string(name);
  if (name.find("pod") != std::string_view::npos)
    if (auto uid = pod_uid_from_cgroup(line)) {
      out.kind = CgroupName::Kind::kPod;
      out.pod_uid = *uid;
    }
  return out;
}

}  // namespace plegscope::host
