#pragma once
// The process's own flags (address, TLS, logging, the node's name) and
// `diagnose`'s. Every source's flags are declared beside its options in its
// own folder (add_flags, bound by common/flag_binding.h) and registered from
// the source list (options.cpp).
#include <CLI/CLI.hpp>

#include <string>

#include "cli/options.h"
#include "common/flag_binding.h"

namespace plegscope {

// What the agent's process itself takes: the HTTP address and web config,
// the node's name, the log level, the hang threshold.
void add_agent_flags(CLI::App& app, Config& config);
void add_diagnose_flags(CLI::App& diagnose, DiagnoseCommandOptions& options);

// Defaults read from the host once the flags are in: the runtime's socket
// (the first that exists), the node's name, the in-cluster API server.
void resolve_host_defaults(Config& config);
// Checks that need more than one flag, after parsing.
void check_flags(Config& config);

}  // namespace plegscope
