#include "routes.h"

#include "metrics_endpoint.h"
#include "debug_json.h"
#include "diagnosis_endpoint.h"

namespace plegscope {
namespace {

HttpResponse json_response(const nlohmann::json& body) {
  return {200, "application/json", body.dump(2) + "\n"};
}

}  // namespace

void add_routes(HttpServer& server, Monitor& monitor) {
  server.route("/", [](const HttpRequest&) {
    return HttpResponse::text(
        200,
        "plegscope: /metrics /healthz /readyz /livez /diagnose /debug/pods /debug/events");
  });
  auto metrics = std::make_shared<MetricsEndpoint>(monitor);
  server.route("/metrics", [metrics](const HttpRequest&) { return metrics->serve(); });
  server.route("/diagnose", [&monitor](const HttpRequest& request) {
    return diagnose_response(monitor, request);
  });
  server.route("/healthz", [&monitor](const HttpRequest&) {
    HealthStatus health = monitor.healthy();
    if (health.healthy) return HttpResponse::text(200, "ok");
    return HttpResponse::text(500, "PLEG is not healthy: " + health.message);
  });
  server.route("/readyz", [&monitor](const HttpRequest&) {
    if (monitor.ready()) return HttpResponse::text(200, "ok");
    return HttpResponse::text(503, "not ready: no relist has succeeded yet");
  });
  server.route("/livez", [](const HttpRequest&) { return HttpResponse::text(200, "ok"); });
  server.route("/debug/pods", [&monitor](const HttpRequest&) {
    return json_response(pods_json(monitor.cache().snapshot()));
  });
  server.route("/debug/events", [&monitor](const HttpRequest& request) {
    auto events = monitor.event_log().snapshot();
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
