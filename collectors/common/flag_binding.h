#pragma once
// How a room binds its flags straight into its options: each flag takes the
// default its option already holds, has the environment variable
// PLEGSCOPE_<NAME>, and rejects a bad value with a one-line UsageError that
// names the flag. Each source declares its own flags beside its options
// (<folder>/<name>_flags.h); the process entry point only calls them.
#include <CLI/CLI.hpp>

#include <string>

#include "common/clock.h"

namespace plegscope {

// A bad value: "plegscope: <message>" and exit status 2.
struct UsageError {
  std::string message;
};

// The flag's environment variable: --relist-period -> PLEGSCOPE_RELIST_PERIOD.
std::string flag_env(const std::string& flag);
// A Go duration flag ("500ms", "3m") into `target`; zero only when allowed
// (a flag whose 0s turns something off).
CLI::Option* add_duration_flag(CLI::App& app, const std::string& flag, Duration& target, const std::string& help,
                               bool allow_zero = false);
// A string flag; the default it holds is printed.
CLI::Option* add_text_flag(CLI::App& app, const std::string& flag, std::string& target, const std::string& help);
// A boolean flag that takes no value.
CLI::Option* add_switch_flag(CLI::App& app, const std::string& flag, bool& target, const std::string& help);
// "off" or empty -> ""; else an http(s) URL such as `example`.
CLI::Option* add_url_flag(CLI::App& app, const std::string& flag, std::string& target, const std::string& help,
                          const std::string& default_text, const char* example);

}  // namespace plegscope
