#pragma once
// Command line and environment: the flags, parsed once at start-up, bound
// straight into the option values of the rooms they configure (flags.h).
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "condition/node_condition_writer.h"
#include "http/agent_client.h"
#include "http/web/web_config.h"
#include "node/node_options.h"

namespace plegscope {

// `plegscope diagnose`: relist for a while, or read a running agent's report.
struct DiagnoseCommandOptions {
  Duration duration = std::chrono::seconds(10);
  std::string output = "text";  // text or json
  std::string url;              // a running agent's; empty: relist here
  AgentClientOptions client;    // https and basic auth against that agent
};

struct Config {
  enum class Command { Serve, Diagnose, Version } command = Command::Serve;

  NodeOptions node;  // the PLEG block and every source
  bool endpoint_auto_detected = false;
  DiagnosisOptions diagnosis;
  bool node_condition = false;  // --node-condition: the one write, off by default
  NodeConditionOptions condition;
  std::string listen_address = "0.0.0.0:9547";
  std::string log_level = "info";
  std::string web_config_file;
  WebConfig web;  // loaded from web_config_file at parse time
  DiagnoseCommandOptions diagnose;
};

struct ParseOutcome {
  std::optional<Config> config;  // empty: exit with `exit_code` after printing `message`
  int exit_code = 0;
  std::string message;  // one line for stderr (or help text for stdout when exit_code == 0)
};

// Parses argv (and PLEGSCOPE_* environment variables). Never throws, never exits.
ParseOutcome parse_command_line(int argc, const char* const* argv);

}  // namespace plegscope
