#pragma once
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

inline std::string read_fixture(const std::string& relative) {
  std::ifstream in(std::string(PLEGSCOPE_FIXTURES_DIR) + "/" + relative);
  if (!in) throw std::runtime_error("missing fixture " + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
