#include "http/routes.h"

#include <atomic>

#include "http/debug_json.h"
#include "http/diagnose_endpoint.h"
#include "http/metrics_endpoint.h"

namespace plegscope {
namespace {

HttpResponse json_response(const nlohmann::json& body) {
  return {200, "application/json", body.dump(2) + "\n"};
}

// /healthz?verbose: each of the kubelet's checks on the runtime in the
// kubelet's order (the Status sync, PLEG, RuntimeReady, NetworkReady), the
// way Kubernetes' own healthz lists its checks. The status code stays
// PLEG's alone (docs/operate.md); the other lines say what the kubelet's Ready
// condition holds besides.
std::string healthz_verbose(const Report& r) {
  const Report::RuntimeStatus& s = r.runtime_status;
  auto line = [](const char* name, const std::string& error) {
    return error.empty() ? std::string("[+]") + name + " ok\n" : std::string("[-]") + name + " failed: " + error + "\n";
  };
  auto error_with = [&s](const std::string& prefix) {
    for (const auto& e : s.kubelet_errors)
      if (e.rfind(prefix, 0) == 0) return e;
    return std::string();
  };
  std::string out;
  if (s.enabled) {
    std::string sync = error_with(kRuntimeDownError);
    if (sync.empty()) sync = error_with(kStatusNotCompletedError);
    out += line("runtime_status", sync);
  }
  out += line("pleg", r.healthy ? "" : "PLEG is not healthy: " + r.health_message);
  if (s.enabled) {
    out += line("runtime_ready", error_with(kRuntimeNotReadyPrefix));
    out += line("network_ready", error_with(kNetworkNotReadyPrefix));
  }
  out += r.healthy ? "healthz check passed" : "healthz check failed";  // text() ends the line
  return out;
}

}  // namespace

void add_routes(HttpServer& server, const Node& node, const DiagnosisService& diagnosis, const Clock& clock) {
  server.route("/", [](const HttpRequest&) {
    return HttpResponse::text(
        200,
        "plegscope: /metrics /healthz /readyz /livez /diagnose /debug/pods /debug/events /debug/sizes "
        "/debug/runtime-goroutines");
  });
  auto metrics = std::make_shared<MetricsEndpoint>(node, diagnosis, clock);
  server.route("/metrics", [metrics](const HttpRequest&) { return metrics->serve(); });
  server.route("/diagnose", [&diagnosis](const HttpRequest& request) {
    return diagnose_response(diagnosis, request);
  });
  server.route("/healthz", [&diagnosis](const HttpRequest& request) {
    const auto latest = diagnosis.latest();
    const int code = latest->report.healthy ? 200 : 500;
    if (request.query.count("verbose")) return HttpResponse::text(code, healthz_verbose(latest->report));
    if (latest->report.healthy) return HttpResponse::text(200, "ok");
    return HttpResponse::text(500, "PLEG is not healthy: " + latest->report.health_message);
  });
  // docs/operate.md: ready while serving, so the witness stays in the Service while
  // the runtime is down; whether a relist succeeded is /healthz's, /diagnose's
  // and the metrics' to say.
  server.route("/readyz", [](const HttpRequest&) { return HttpResponse::text(200, "ok"); });
  server.route("/livez", [](const HttpRequest&) { return HttpResponse::text(200, "ok"); });
  server.route("/debug/pods", [&node](const HttpRequest&) { return json_response(pods_json(node.pods())); });
  // CRI-O's goroutine dump on a person's request, at most one read every
  // 10 s (the dump walks every goroutine of a runtime that may be struggling).
  auto last_dump = std::make_shared<std::atomic<int64_t>>(0);
  server.route("/debug/runtime-goroutines", [&node, &clock, last_dump](const HttpRequest&) {
    const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(clock.monotonic().time_since_epoch()).count();
    int64_t last = last_dump->load();
    if (last != 0 && now_s - last < 10)
      return HttpResponse::text(429, "the runtime's goroutine dump was read less than 10 s ago");
    if (!last_dump->compare_exchange_strong(last, now_s))
      return HttpResponse::text(429, "the runtime's goroutine dump is being read");
    auto dump = node.runtime_goroutines();
    if (!dump) return HttpResponse::text(404, "the agent reads no CRI-O: no goroutine page to read");
    if (!dump->ok())
      return HttpResponse::text(502, "CRI-O's /debug/goroutines: " +
                                         (dump->completed() ? "HTTP " + std::to_string(dump->status)
                                                            : std::string(http_error_name(dump->error))));
    return HttpResponse{200, "text/plain; charset=utf-8", std::move(dump->body)};
  });
  server.route("/debug/sizes", [&node](const HttpRequest&) {
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [name, entries] : node.structure_sizes()) sizes[name] = entries;
    return json_response({{"sizes", sizes}});
  });
  server.route("/debug/events", [&node](const HttpRequest& request) {
    auto events = node.events();
    if (auto it = request.query.find("limit"); it != request.query.end()) {
      size_t limit = 0;
      try {
        size_t used = 0;
        long long n = std::stoll(it->second, &used);
        if (used != it->second.size() || n < 0) throw std::invalid_argument("negative");
        limit = static_cast<size_t>(n);
      } catch (const std::exception&) {
        return HttpResponse::text(400, "bad limit \"" + it->second +
                                           "\": expected a non-negative integer");
      }
      if (events.size() > limit) events.erase(events.begin(), events.end() - limit);
    }
    return json_response(events_json(events));
  });
}

}  // namespace plegscope
