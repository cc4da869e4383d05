// CRI-O's pages are read, never acted on: no path the reader builds, for any
// page and any container id it is handed, reaches CRI-O's pause, unpause,
// heap or pprof pages, and no source file of the agent or the collectors
// names them.
#include "crio/crio_pages.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include "source_tree.h"

namespace plegscope {
namespace {

const std::vector<std::string> kActing = {"/pause", "/unpause", "/debug/heap", "/debug/pprof"};

bool reaches_acting_page(const std::string& path) {
  for (const auto& bad : kActing)
    if (path.find(bad) != std::string::npos) return true;
  return path.find("..") != std::string::npos || path.find('%') != std::string::npos ||
         path.find('?') != std::string::npos;
}

TEST(CrioPages, OnlyTheReadOnlyPagesHavePaths) {
  EXPECT_EQ(crio_page_path(CrioPage::kInfo), "/info");
  EXPECT_EQ(crio_page_path(CrioPage::kGoroutines), "/debug/goroutines");
  const std::string id(64, 'a');
  EXPECT_EQ(crio_page_path(CrioPage::kContainer, id), "/containers/" + id);
  EXPECT_EQ(crio_page_path(CrioPage::kContainer, "4c5d"), "/containers/4c5d");
}

TEST(CrioPages, NoContainerIdReachesAPageThatActs) {
  const std::vector<std::string> hostile = {
      "", "../pause/4c5d", "4c5d/../../pause/4c5d", "..%2fpause%2f4c5d", "4c5d?x=/pause", "/unpause/4c5d",
      "4C5D", "4c5d ", "4c5d\n", std::string(65, 'a'), "debug/heap", "..", "4c5d/../../debug/heap",
      "%2e%2e/debug/pprof/heap", std::string("4c5d\0/pause", 11)};
  for (CrioPage page : {CrioPage::kInfo, CrioPage::kContainer, CrioPage::kGoroutines})
    for (const auto& id : hostile) {
      auto path = crio_page_path(page, id);
      SCOPED_TRACE(id);
      if (path) {
        EXPECT_FALSE(reaches_acting_page(*path)) << *path;
      }
      if (page == CrioPage::kContainer) {
        EXPECT_FALSE(path) << *path;
      }
    }
  // And the reader itself refuses before connecting.
  HttpResult r = get_crio_page("/nonexistent/crio.sock", CrioPage::kContainer, "../pause/4c5d");
  EXPECT_EQ(r.error, HttpError::bad_url);
  EXPECT_EQ(r.status, 0);
}

// No file of the agent or the collectors holds one of those paths in a
// string literal, so no other code path can ask CRI-O for them either.
TEST(CrioPages, NoSourceNamesAPageThatActs) {
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const char* dir : {"agent", "collectors"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(source_tree::root()) / dir)) {
      const auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h" && ext != ".c")) continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      for (const auto& bad : kActing)
        EXPECT_EQ(text.str().find("\"" + bad), std::string::npos) << e.path() << " names " << bad;
    }
  EXPECT_GT(files, 100u) << "the scan found the sources";
}

// Every request to crio.sock is built by crio_page_path: no other file of the
// agent or the collectors addresses CRI-O's HTTP server (the CRI-O pages
// source asks only through get_crio_page).
TEST(CrioPages, OnlyThePagesReaderAddressesCrio) {
  namespace fs = std::filesystem;
  for (const char* dir : {"agent", "collectors"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(source_tree::root()) / dir)) {
      const auto ext = e.path().extension();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      if (e.path().filename() == "crio_pages.cpp") continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      EXPECT_EQ(text.str().find("\"http://crio"), std::string::npos) << e.path();
    }
}

TEST(CrioPages, PagesParse) {
  auto info = parse_crio_info(
      R"({"storage_driver":"overlay","storage_image":"","storage_root":"/var/lib/containers/storage",)"
      R"("cgroup_driver":"systemd","default_id_mappings":{"uids":null,"gids":null}})");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->storage_driver, "overlay");
  EXPECT_EQ(info->cgroup_driver, "systemd");
  auto c = parse_crio_container(
      R"({"name":"k8s_app_web-0_shop_uid_0","pid":4242,"image":"x","sandbox":"4c5d","log_path":"/var/log/pods/x",)"
      R"("labels":{"io.kubernetes.pod.name":"web-0"},"ip_addresses":null})");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->pid, 4242);
  EXPECT_EQ(c->sandbox, "4c5d");
  EXPECT_EQ(c->labels.at("io.kubernetes.pod.name"), "web-0");
  EXPECT_FALSE(parse_crio_info("not json"));
  EXPECT_FALSE(parse_crio_container(R"({"name":"x"})"));
  EXPECT_FALSE(parse_crio_container("[]"));
}

}  // namespace
}  // namespace plegscope
