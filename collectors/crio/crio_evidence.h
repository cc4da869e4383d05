#pragma once
// What CRI-O's own pages said, as last read (crio_source.h): a plain value
// the diagnoser's snapshot holds as it is. A source that is off has an empty
// socket.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "crio/crio_page_contents.h"

namespace plegscope {

struct CrioPagesEvidence {
  std::string socket;  // empty when off
  bool reachable = false;
  std::string error;   // the last failure, one line
  std::optional<CrioInfo> info;
  // A container CRI lists as running whose conmon is gone.
  struct Unmonitored {
    std::string id;
    std::string name;     // CRI-O's k8s_<container>_<pod>_<namespace>_<uid>_<attempt>
    std::string sandbox;
    int64_t init_pid = 0;
    bool init_alive = false;  // <proc>/<init_pid> exists
    int checks = 0;           // consecutive periods it was found so
  };
  std::vector<Unmonitored> unmonitored;
};

}  // namespace plegscope
