#pragma once
// What CRI-O's /info and /containers/<id> pages say, as values (crio_pages.h reads them).
#include <cstdint>
#include <map>
#include <string>

namespace plegscope {

struct CrioInfo {
  std::string storage_driver;
  std::string storage_root;
  std::string cgroup_driver;
};

struct CrioContainerInfo {
  std::string name;
  int64_t pid = 0;  // the container's first process, as the host sees it
  std::string sandbox;
  std::string log_path;
  std::map<std::string, std::string> labels;
};

}  // namespace plegscope
