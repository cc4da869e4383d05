#include "source_tree.h"

namespace source_tree {

const std::string& root() {
  static const std::string dir = PLEGSCOPE_SOURCE_DIR;
  return dir;
}

const std::string& fixtures() {
  static const std::string dir = std::string(PLEGSCOPE_SOURCE_DIR) + "/tests/fixtures";
  return dir;
}

}  // namespace source_tree
