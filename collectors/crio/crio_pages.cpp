#include "crio/crio_pages.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace plegscope {
namespace {

bool is_container_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (char ch : id)
    if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) return false;
  return true;
}

std::optional<nlohmann::json> object_of(std::string_view body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::string text_of(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<std::string> crio_page_path(CrioPage page, std::string_view container_id) {
  switch (page) {
    case CrioPage::kInfo:
      if (!container_id.empty()) return std::nullopt;
      return std::string("/info");
    case CrioPage::kGoroutines:
      if (!container_id.empty()) return std::nullopt;
      return std::string("/debug/goroutines");
    case CrioPage::kContainer:
      if (!is_container_id(container_id)) return std::nullopt;
      return "/containers/" + std::string(container_id);
  }
  return std::nullopt;
}

std::optional<CrioInfo> parse_crio_info(std::string_view body) {
  auto j = object_of(body);
  if (!j || !j->contains("storage_driver")) return std::nullopt;
  return CrioInfo{text_of(*j, "storage_driver"), text_of(*j, "storage_root"), text_of(*j, "cgroup_driver")};
}

std::optional<CrioContainerInfo> parse_crio_container(std::string_view body) {
  auto j = object_of(body);
  if (!j || !j->contains("pid") || !(*j)["pid"].is_number_integer()) return std::nullopt;
  CrioContainerInfo c;
  c.name = text_of(*j, "name");
  c.pid = (*j)["pid"].get<int64_t>();
  c.sandbox = text_of(*j, "sandbox");
  c.log_path = text_of(*j, "log_path");
  if (auto it = j->find("labels"); it != j->end() && it->is_object())
    for (const auto& [k, v] : it->items())
      if (v.is_string()) c.labels[k] = v.get<std::string>();
  return c;
}

HttpResult get_crio_page(const std::string& socket_path, CrioPage page, std::string_view container_id,
                         std::chrono::milliseconds timeout) {
  auto path = crio_page_path(page, container_id);
  if (!path) {
    HttpResult bad;
    bad.error = HttpError::bad_url;
    bad.error_detail = "not a container id: " + std::string(container_id.substr(0, 80));
    return bad;
  }
  HttpRequestOptions o;
  o.unix_socket_path = socket_path.rfind("unix://", 0) == 0 ? socket_path.substr(7) : socket_path;
  o.connect_timeout = std::min(timeout, std::chrono::milliseconds(3000));
  o.total_timeout = timeout;
  o.max_body_bytes = page == CrioPage::kGoroutines ? 32u << 20 : 1u << 20;
  o.headers = {"Accept: application/json"};
  return http_get("http://crio" + *path, o);
}

}  // namespace plegscope
