// libFuzzer target: requests through the agent's real routes (routes.cpp,
// report_http.cpp) bound to a Monitor that has never reached a runtime.
// Input: method selector byte, then "PATH?QUERY". Every answer must be a
// real HTTP status, and a bad query value a 4xx, never a 5xx (except the
// health endpoints, whose 500/503 mean "PLEG unhealthy / not ready").
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_quiet.h"
#include "http_server.h"
#include "monitor.h"
#include "routes.h"

namespace {

using namespace plegscope;

struct Agent {
  SystemClock clock;
  Config config;
  std::unique_ptr<Monitor> monitor;
  HttpServer server;
  Agent() {
    config.runtime_endpoint = "unix:///nonexistent/fuzz-cri.sock";
    config.proc_path = PLEGSCOPE_SOURCE_DIR "/tests/fixtures/proc/io_pressure";
    monitor = std::make_unique<Monitor>(config, clock);
    add_routes(server, *monitor);
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
  bool health = request.path == "/healthz" || request.path == "/readyz";
  if (response.status >= 500 && !health) __builtin_trap();
  return 0;
}
