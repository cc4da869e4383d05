#include "cli/serve.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "http/routes.h"
#include "http/server.h"
#include "node/diagnosis_service.h"
#include "node/node.h"
#include "condition/verdict_transitions.h"
#include "report/transition_record.h"
#include "condition/node_condition_writer.h"
#include "report/condition_words.h"
#include "cri/runtime_socket.h"

namespace plegscope {

namespace {

// How often the verdict is looked at for a change of status: the service
// shares each diagnosis with the scrapes, so this costs at most one diagnosis
// every 2 s, and a transition is logged within 2 s of the verdict changing.
constexpr Duration kVerdictWatchInterval = std::chrono::seconds(2);

// One line, written whole and flushed: stdout is what log pipelines keep.
void log_transition(const VerdictTransition& t, const Diagnosis& d) {
  std::string line = transition_record(d.report, t.previous, t.suppressed, PLEGSCOPE_VERSION).dump();
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

}  // namespace

int serve(const Config& config) {
  // Signals are taken by sigtimedwait() below, never by an arbitrary thread.
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
  Lanes lanes(clock);
  Node node(config.node, clock);
  DiagnosisService diagnosis(node, clock, config.diagnosis);
  HttpServer http;
  add_routes(http, node, diagnosis, clock);
  if (std::string error = http.start(config.listen_address, config.web); !error.empty()) {
    std::fprintf(stderr, "plegscope: %s: %s\n",
                 config.web.tls && error.rfind("cannot listen", 0) != 0 ? "--web-config-file" : "--listen-address",
                 error.c_str());
    return 2;
  }
  spdlog::info("plegscope {} on node {}: serving {}://{}/metrics{}, runtime {}{}", PLEGSCOPE_VERSION,
               config.node.node_name, config.web.tls ? "https" : "http", config.listen_address,
               config.web.basic_auth_users.empty() ? "" : " (basic auth)",
               config.node.runtime.endpoint, config.endpoint_auto_detected ? " (auto-detected)" : "");
  SocketState socket = runtime_socket_state(config.node.runtime.endpoint);
  if (socket == SocketState::kNotAUnixPath || socket == SocketState::kMissing)
    spdlog::warn("no CRI socket at {} yet; relisting keeps trying every {}s",
                 config.node.runtime.endpoint, to_seconds(config.node.pleg.relist_period));
  VerdictWatch verdicts(diagnosis, clock, log_transition);
  // A look at the verdict is short and never waits on the runtime: it
  // shares the quick lane with the host scan.
  lanes.quick().every(kVerdictWatchInterval, [&verdicts] { verdicts.check(); });
  node.start(lanes.view());
  lanes.waiting().start();
  // The one write plegscope makes, to the API server only, and only when asked.
  std::optional<NodeConditionWriter> condition;
  if (config.node_condition) {
    auto api = api_server_config(config.node.api_server);
    if (!api) spdlog::warn("--node-condition: not in a cluster (KUBERNETES_SERVICE_HOST and _PORT unset): no writes");
    condition.emplace(api, config.node.node_name, config.condition, diagnosis, clock, condition_message);
    diagnosis.read_condition_from([&condition] { return condition->state(); });
    condition->start();
  }

  // The main thread, otherwise idle until a signal, runs the quick lane
  // (host scan, verdict watch) while it waits for one.
  int sig = 0;
  lanes.quick().run_here([&](MonoTime next) {
    if (next == MonoTime::max()) return sigwait(&signals, &sig) == 0;
    const auto left = std::max(Duration::zero(), next - clock.monotonic());
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(left);
    struct timespec timeout {};
    timeout.tv_sec = seconds.count();
    timeout.tv_nsec = (left - seconds).count();
    const int got = sigtimedwait(&signals, nullptr, &timeout);
    if (got > 0) sig = got;
    return got > 0;  // otherwise the time came (EAGAIN) or a stray signal woke it (EINTR)
  });
  spdlog::info("received signal {}, shutting down", sig);
  if (condition) condition->stop();
  node.stop();
  lanes.stop();
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
