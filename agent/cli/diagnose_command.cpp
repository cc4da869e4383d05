#include "cli/diagnose_command.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "http/agent_client.h"
#include "node/diagnosis_service.h"
#include "node/node.h"
#include "cri/runtime_socket.h"
#include "report/json.h"
#include "report/text.h"

namespace plegscope {
namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "plegscope: %s\n", message.c_str());
  return 2;
}

// After a Node ran, as serve() does: gRPC's own threads may still hold its
// internal locks and tearing the channel down under them aborts; nothing is
// left to save, so exit without destructors.
[[noreturn]] void leave(int code) {
  spdlog::shutdown();
  std::fflush(nullptr);
  std::_Exit(code);
}

int print(const Report& report, const std::string& output) {
  std::string body = output == "json" ? report_to_json(report).dump(2) + "\n" : render_text(report);
  std::fwrite(body.data(), 1, body.size(), stdout);
  std::fflush(stdout);
  return report.status == Status::kHealthy ? 0 : 1;
}

int diagnose_url(const Config& config) {
  auto url = parse_agent_url(config.diagnose.url);
  if (!url) return fail("--url: invalid value \"" + config.diagnose.url + "\" (expected http[s]://HOST:PORT)");
  FetchedReport fetched = fetch_report(*url, config.diagnose.client);
  if (!fetched.report) return fail("--url " + config.diagnose.url + ": " + fetched.error);
  return print(*fetched.report, config.diagnose.output);
}

// Fails fast on an endpoint that is not a working CRI runtime: the first
// relist fails as UNAVAILABLE (nobody listening) or UNIMPLEMENTED (not CRI).
std::optional<std::string> not_a_runtime(const Node& node, const Config& config, const Clock& clock,
                                         MonoTime deadline) {
  while (clock.monotonic() < deadline && node.relist_count() == 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (node.relist_count() == 0) return std::nullopt;
  Snapshot first = node.snapshot();
  if (first.timeline.empty() || first.last_seen) return std::nullopt;
  const RelistRecord& record = first.timeline.front();
  if (!record.error_code ||
      (*record.error_code != GrpcCode::kUnavailable && *record.error_code != GrpcCode::kUnimplemented))
    return std::nullopt;
  return "--container-runtime-endpoint: " + config.node.runtime.endpoint + " did not answer as a CRI runtime: " +
         grpc_code_name(*record.error_code) +
         (record.error_message.empty() ? "" : " (" + record.error_message + ")");
}

int diagnose_endpoint(const Config& config) {
  if (runtime_socket_state(config.node.runtime.endpoint) != SocketState::kSocket)
    return fail("--container-runtime-endpoint: no CRI socket at " + config.node.runtime.endpoint +
                " (expected the runtime's unix socket, e.g. unix:///run/containerd/containerd.sock)");
  SystemClock clock;
  Lanes lanes(clock);
  Node node(config.node, clock);
  DiagnosisService diagnosis(node, clock, config.diagnosis);
  node.start(lanes.view());
  lanes.quick().start();
  lanes.waiting().start();
  const MonoTime deadline = clock.monotonic() + config.diagnose.duration;
  if (auto error = not_a_runtime(node, config, clock, deadline)) {
    node.stop();
    lanes.stop();
    leave(fail(*error));
  }
  while (clock.monotonic() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto latest = diagnosis.latest();
  node.stop();  // cancels a hung call, so this returns promptly
  lanes.stop();
  leave(print(latest->report, config.diagnose.output));
}

}  // namespace

int run_diagnose(const Config& config) {
  if (!config.diagnose.url.empty()) return diagnose_url(config);
  return diagnose_endpoint(config);
}

}  // namespace plegscope
