#pragma once
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include "source_tree.h"

inline std::string read_fixture(const std::string& relative) {
  std::ifstream in(source_tree::fixtures() + "/" + relative);
  if (!in) throw std::runtime_error("missing fixture " + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
