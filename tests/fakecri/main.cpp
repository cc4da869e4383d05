// fakecri: a fake CRI runtime.v1 server simulating a node, driven by a
// scenario file (tests/scenarios/README.md). For tests, the demo and
// benchmarks; never for production.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>

#include "control_server.h"
#include "fake_runtime.h"
#include "scenario_loader.h"

namespace {

constexpr int kUsageError = 2;

int usage_error(const std::string& message) {
  std::fprintf(stderr, "fakecri: %s\n", message.c_str());
  return kUsageError;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fakecri: fake CRI runtime.v1 server simulating a node from a scenario file"};
  std::string socket_path, scenario_path, control_address, log_level = "info";
  app.add_option("--socket", socket_path, "unix socket path to serve CRI on")->required();
  app.add_option("--scenario", scenario_path, "scenario JSON file")->required();
  app.add_option("--control-address", control_address, "HOST:PORT of the HTTP control endpoint (loopback)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what) if (c == '\n') c = ' ';
    return usage_error(what);
  }

  auto logger = spdlog::stderr_color_mt("fakecri");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(log_level));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ fakecri: %v");

  fakecri::Scenario scenario;
  try {
    scenario = fakecri::load_scenario_file(scenario_path);
  } catch (const fakecri::ScenarioError& e) {
    return usage_error("--scenario " + scenario_path + ": " + e.what());
  }
  if (socket_path.empty()) return usage_error("--socket: must not be empty");

  // Signals are taken synchronously by sigwait below; block them before any
  // thread starts so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  fakecri::SystemClock clock;
  fakecri::FakeRuntime runtime(std::move(scenario), socket_path, clock);
  std::string error;
  // A scenario may start with the socket down; its directory must still be
  // usable when the socket comes up.
  const auto slash = socket_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : socket_path.substr(0, slash));
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return usage_error("--socket " + socket_path + ": directory " + dir + " does not exist or is not writable");
  }
  // Control first: a bad --control-address fails before anything is served.
  fakecri::ControlServer control(runtime);
  if (!control_address.empty() && !control.start(control_address, &error)) return usage_error(error);
  if (!runtime.start(&error)) {
    control.stop();
    return usage_error(error);
  }
  const auto& sc = runtime.scenario();
  std::printf("fakecri ready: scenario=%s socket=%s control=%s\n", sc.name.c_str(), socket_path.c_str(),
              control_address.empty() ? "-" : control_address.c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("signal {}: shutting down", sig);
  runtime.shutdown();  // ends hangs and removes the socket first
  control.stop();
  return 0;
}
