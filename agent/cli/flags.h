#pragma once
// One function per block, source and room: each binds its flags straight
// into that room's options, with the defaults the options already hold,
// and rejects a bad value with a one-line UsageError naming the flag.
// Every flag's environment variable is PLEGSCOPE_ and its name in capitals.
#include <CLI/CLI.hpp>

#include <string>

#include "cli/options.h"

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

void add_runtime_flags(CLI::App& app, GrpcClientOptions& runtime);
void add_pleg_flags(CLI::App& app, PlegOptions& pleg);
void add_host_flags(CLI::App& app, HostSourceOptions& host);
void add_journal_flags(CLI::App& app, JournalFollowerOptions& journal);
void add_kubelet_flags(CLI::App& app, KubeletReaderOptions& kubelet);
void add_api_server_flags(CLI::App& app, ApiServerOptions& api);
void add_runtime_metrics_flags(CLI::App& app, RuntimeMetricsOptions& runtime_metrics);
void add_condition_flags(CLI::App& app, bool& enabled, NodeConditionOptions& condition);
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
