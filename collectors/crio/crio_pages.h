#pragma once
// CRI-O's own HTTP pages, served on its CRI socket beside gRPC, read only.
// Three pages can be named here: /info (its storage and cgroup driver),
// /containers/<id> (a container's init pid, sandbox, log path and labels)
// and /debug/goroutines (its goroutine dump, for a report asked for by a
// person, never on a timer). CRI-O serves pages that act on containers
// (pause and unpause) and one that stops the world (the heap profile):
// those have no name here, and a container id is checked to be one (hex,
// 1 to 64 digits), so no path this module builds can reach them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "crio/crio_page_contents.h"
#include "scrape/http_client.h"

namespace plegscope {

enum class CrioPage { kInfo, kContainer, kGoroutines };

// The page's path, "/containers/<id>" for kContainer; nullopt when
// `container_id` is not a container id (or is given for another page).
std::optional<std::string> crio_page_path(CrioPage page, std::string_view container_id = {});

// nullopt when `body` is not the page's JSON.
std::optional<CrioInfo> parse_crio_info(std::string_view body);
std::optional<CrioContainerInfo> parse_crio_container(std::string_view body);

// GET of one page on `socket_path` (a unix socket, "unix://" optional),
// bounded as every request of http_get is. A bad container id answers
// HttpError::bad_url without connecting.
HttpResult get_crio_page(const std::string& socket_path, CrioPage page, std::string_view container_id = {},
                         std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

}  // namespace plegscope
