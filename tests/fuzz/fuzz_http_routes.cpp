// libFuzzer target: requests through the agent's real routes (http/routes.cpp)
// bound to a Node that has never reached a runtime and its DiagnosisService.
// Input: method selector byte, then "PATH?QUERY". Every answer must be a
// real HTTP status, and a bad query value a 4xx, never a 5xx (except
// /healthz, whose 500 means "PLEG unhealthy").
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_quiet.h"
#include "http/routes.h"
#include "http/server.h"
#include "node/diagnosis_service.h"
#include "node/node.h"

namespace {

using namespace plegscope;

struct Agent {
  SystemClock clock;
  NodeOptions options;
  std::unique_ptr<Node> node;
  std::unique_ptr<DiagnosisService> diagnosis;
  HttpServer server;
  Agent() {
    options.runtime.endpoint = "unix:///nonexistent/fuzz-cri.sock";
    options.host.proc_path = PLEGSCOPE_SOURCE_DIR "/tests/fixtures/proc/io_pressure";
    node = std::make_unique<Node>(options, clock);
    diagnosis = std::make_unique<DiagnosisService>(*node, clock, DiagnosisOptions{});
    add_routes(server, *node, *diagnosis, clock);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Agent* agent = new Agent();  // one agent for the whole run, as in production
  if (size == 0) return 0;
  static const char* kMethods[] = {"GET", "HEAD", "POST", "DELETE"};
  HttpRequest request;
  request.method = kMethods[data[0] % 4];
  std::string target(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto q = target.find('?');
  request.path = target.substr(0, q);
  if (q != std::string::npos) request.query = parse_query(target.substr(q + 1));
  HttpResponse response = agent->server.dispatch(request);
  if (response.status < 200 || response.status > 599) __builtin_trap();
  bool health = request.path == "/healthz";
  if (response.status >= 500 && !health) __builtin_trap();
  return 0;
}
