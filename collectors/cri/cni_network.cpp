#include "cri/cni_network.h"

#include <algorithm>
#include <cctype>
#include <dirent.h>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace plegscope {
namespace {

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool is_config_file(std::string_view name) {
  return ends_with(name, ".conf") || ends_with(name, ".conflist") || ends_with(name, ".json");
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string text_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool cni_version_at_least(std::string_view version, int major, int minor) {
  int parts[2] = {0, 0};
  size_t at = 0;
  for (int& part : parts) {
    size_t end = at;
    while (end < version.size() && std::isdigit(static_cast<unsigned char>(version[end]))) end++;
    if (end == at) return false;
    part = std::stoi(std::string(version.substr(at, end - at)));
    if (end >= version.size() || version[end] != '.') break;
    at = end + 1;
  }
  return parts[0] > major || (parts[0] == major && parts[1] >= minor);
}

std::optional<CniNetwork> parse_cni_network(std::string_view file, std::string_view bytes) {
  const nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  CniNetwork n;
  n.file = std::string(file);
  n.name = text_of(j, "name");
  n.cni_version = text_of(j, "cniVersion");
  if (auto plugins = j.find("plugins"); plugins != j.end() && plugins->is_array()) {
    for (const auto& p : *plugins)
      if (p.is_object() && !text_of(p, "type").empty()) n.plugins.push_back(text_of(p, "type"));
  } else if (!text_of(j, "type").empty()) {
    n.plugins.push_back(text_of(j, "type"));
  }
  if (n.plugins.empty()) return std::nullopt;
  n.status_called = cni_version_at_least(n.cni_version, 1, 1);
  return n;
}

CniNetworkRead read_cni_network(const std::string& dir) {
  CniNetworkRead read;
  read.dir = dir;
  DIR* d = opendir(dir.c_str());
  if (!d) {
    read.error = "cannot read " + dir;
    return read;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d))
    if (is_config_file(e->d_name)) names.emplace_back(e->d_name);
  closedir(d);
  std::sort(names.begin(), names.end());
  read.files = static_cast<int>(names.size());
  for (const auto& name : names) {
    std::ifstream in(dir + "/" + name);
    if (!in) continue;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if ((read.network = parse_cni_network(name, bytes.str()))) break;
  }
  return read;
}

NetworkMessage read_network_message(std::string_view message) {
  static constexpr std::string_view kPrefix = "Network plugin returns error: ";
  const std::string m = lower(message);
  // containerd (go-cni ErrCNINotInitialized), CRI-O (ocicni's missing default
  // network, its manager's state before the first poll), a load that failed.
  for (const char* no_config : {"cni plugin not initialized", "no cni configuration file", "cni config load failed"})
    if (m.find(no_config) != std::string::npos) return {NetworkMessageKind::kNoConfig, ""};
  const size_t at = message.find(kPrefix);
  if (at == std::string_view::npos || at + kPrefix.size() >= message.size()) return {};
  return {NetworkMessageKind::kPluginError, std::string(message.substr(at + kPrefix.size()))};
}

std::string plugin_named(const CniNetwork& network, std::string_view plugin_error) {
  const std::string error = lower(plugin_error);
  for (const auto& plugin : network.plugins)
    if (error.find("\"" + lower(plugin) + "\"") != std::string::npos) return plugin;
  // A type named as a word of the plugin's own message ("calico: datastore not ready").
  for (const auto& plugin : network.plugins) {
    const std::string p = lower(plugin);
    for (size_t at = error.find(p); at != std::string::npos; at = error.find(p, at + 1)) {
      const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(error[at - 1]));
      const size_t end = at + p.size();
      const bool ends = end == error.size() || !std::isalnum(static_cast<unsigned char>(error[end]));
      if (starts && ends) return plugin;
    }
  }
  return network.plugins.size() == 1 ? network.plugins.front() : std::string();
}

}  // namespace plegscope
