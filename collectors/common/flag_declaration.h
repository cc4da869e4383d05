#pragma once
// What an options header needs to declare its flags beside its options
// without pulling the command-line library into every reader of them: each
// room declares `void add_flags(CLI::App&, TheirOptions&)` here-shaped and
// defines it in its own <name>_flags.cpp, linked only by the process's
// command line (common/flag_binding.h has the helpers).
namespace CLI {
class App;
}  // namespace CLI
