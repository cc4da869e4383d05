// libFuzzer target: the command line. Input: arguments separated by NUL
// bytes. Whatever the arguments, parse_command_line returns (never throws or
// exits); a refusal is exit code 2 (or 0 for --help) with a one-line message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"plegscope"};
  std::string current;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  args.push_back(current);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  auto outcome = plegscope::parse_command_line(static_cast<int>(args.size()), argv.data());
  if (outcome.config) return 0;
  if (outcome.exit_code != 0 && outcome.exit_code != 2) __builtin_trap();
  if (outcome.exit_code == 2 && outcome.message.find('\n') != std::string::npos &&
      outcome.message.find('\n') + 1 != outcome.message.size())
    __builtin_trap();  // a usage error is one line
  return 0;
}
