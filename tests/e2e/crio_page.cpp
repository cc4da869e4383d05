// crio-page: reads one of CRI-O's read-only pages through the agent's own
// reader (collectors/crio/crio_pages.h), for the CRI-O e2e test.
// Usage: crio-page SOCKET info|goroutines|container ID
// Prints the page parsed as one JSON object (goroutines: its size). Exit 0;
// 1 when CRI-O did not answer or the page did not parse; 2 on bad usage or a
// container id the reader refuses.
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "crio/crio_pages.h"

using namespace plegscope;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: crio-page SOCKET info|goroutines|container ID\n");
    return 2;
  }
  const std::string socket = argv[1], what = argv[2];
  const std::string id = argc > 3 ? argv[3] : "";
  CrioPage page = what == "info" ? CrioPage::kInfo : what == "goroutines" ? CrioPage::kGoroutines : CrioPage::kContainer;
  if (what != "info" && what != "goroutines" && what != "container") {
    std::fprintf(stderr, "crio-page: unknown page '%s' (expected info, goroutines or container)\n", what.c_str());
    return 2;
  }
  HttpResult r = get_crio_page(socket, page, id);
  if (r.error == HttpError::bad_url) {
    std::fprintf(stderr, "crio-page: %s\n", r.error_detail.c_str());
    return 2;
  }
  if (!r.ok()) {
    std::fprintf(stderr, "crio-page: %s: HTTP %ld %s %s\n", what.c_str(), r.status, http_error_name(r.error),
                 r.error_detail.c_str());
    return 1;
  }
  nlohmann::json out;
  if (page == CrioPage::kInfo) {
    auto info = parse_crio_info(r.body);
    if (!info) return 1;
    out = {{"storage_driver", info->storage_driver}, {"storage_root", info->storage_root},
           {"cgroup_driver", info->cgroup_driver}};
  } else if (page == CrioPage::kContainer) {
    auto c = parse_crio_container(r.body);
    if (!c) return 1;
    out = {{"name", c->name}, {"pid", c->pid}, {"sandbox", c->sandbox}, {"log_path", c->log_path},
           {"labels", c->labels}};
  } else {
    out = {{"bytes", r.body.size()}, {"goroutines", r.body.find("goroutine ") != std::string::npos}};
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
