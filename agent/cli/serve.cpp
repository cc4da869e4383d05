#include "cli/serve.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>

#include "http/routes.h"
#include "http/server.h"
#include "node/diagnosis_service.h"
#include "node/node.h"
#include "cri/runtime_socket.h"

namespace plegscope {

int serve(const Config& config) {
  // Signals are taken by sigwait() below, never by an arbitrary thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Every connection is an fd; the common soft limit of 1024 would let a
  // thousand idle clients starve the listener (Go servers raise it too).
  struct rlimit files {};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }

  SystemClock clock;
  Node node(node_options(config), clock);
  DiagnosisService diagnosis(node, diagnosis_options(config));
  HttpServer http;
  add_routes(http, node, diagnosis);
  if (std::string error = http.start(config.listen_address, config.web); !error.empty()) {
    std::fprintf(stderr, "plegscope: %s: %s\n",
                 config.web.tls && error.rfind("cannot listen", 0) != 0 ? "--web-config-file" : "--listen-address",
                 error.c_str());
    return 2;
  }
  spdlog::info("plegscope {} on node {}: serving {}://{}/metrics{}, runtime {}{}", PLEGSCOPE_VERSION,
               config.node_name, config.web.tls ? "https" : "http", config.listen_address,
               config.web.basic_auth_users.empty() ? "" : " (basic auth)",
               config.runtime_endpoint, config.endpoint_auto_detected ? " (auto-detected)" : "");
  SocketState socket = runtime_socket_state(config.runtime_endpoint);
  if (socket == SocketState::kNotAUnixPath || socket == SocketState::kMissing)
    spdlog::warn("no CRI socket at {} yet; relisting keeps trying every {}s",
                 config.runtime_endpoint, to_seconds(config.relist_period));
  node.start();

  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("received signal {}, shutting down", sig);
  node.stop();
  http.stop();
  spdlog::info("stopped");
  spdlog::shutdown();
  std::fflush(nullptr);
  // Every thread of ours has ended; gRPC's own may still hold its internal
  // locks, and tearing its channel down under them aborts. Nothing is left to
  // save, so leave without running destructors.
  std::_Exit(0);
}

}  // namespace plegscope
