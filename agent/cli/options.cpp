#include "cli/options.h"

#include "condition/condition_flags.h"

#include <algorithm>

#include "cli/flags.h"

namespace plegscope {

ParseOutcome parse_command_line(int argc, const char* const* argv) {
  Config c;
  CLI::App app{"plegscope: explains why the kubelet's PLEG is (or is about to be) unhealthy", "plegscope"};
  app.fallthrough();
  // The PLEG block's, the process's own, then every source's in list order.
  add_flags(app, c.node.runtime);
  add_flags(app, c.node.pleg);
  add_agent_flags(app, c);
#define PLEGSCOPE_SOURCE_FLAGS(Type, name) add_flags(app, c.node.name);
  PLEGSCOPE_SOURCES(PLEGSCOPE_SOURCE_FLAGS)
#undef PLEGSCOPE_SOURCE_FLAGS
  add_flags(app, c.node.api_server);
  add_flags(app, c.node_condition, c.condition);
  auto* serve = app.add_subcommand("serve", "run the agent (the default)");
  auto* diagnose = app.add_subcommand("diagnose", "relist for a while, then print a report");
  add_diagnose_flags(*diagnose, c.diagnose);
  auto* version = app.add_subcommand("version", "print the version");
  app.require_subcommand(0, 1);

  ParseOutcome out;
  try {
    app.parse(argc, argv);
    (void)serve;
    if (*diagnose) c.command = Config::Command::Diagnose;
    if (*version) c.command = Config::Command::Version;
    resolve_host_defaults(c);
    check_flags(c);
    out.config = c;
  } catch (const CLI::CallForHelp&) {
    out.exit_code = 0;
    out.message = app.help();
  } catch (const CLI::ParseError& e) {
    out.exit_code = 2;
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    out.message = "plegscope: " + what + " (see plegscope --help)";
  } catch (const UsageError& e) {
    out.exit_code = 2;
    out.message = "plegscope: " + e.message;
    // The message quotes the bad value, which may hold line breaks: keep it one line.
    std::replace(out.message.begin(), out.message.end(), '\n', ' ');
  }
  return out;
}

}  // namespace plegscope
