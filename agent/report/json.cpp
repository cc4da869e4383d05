#include "report/json.h"

#include <cmath>
#include <ctime>
#include <stdexcept>

#include "report/time_format.h"

namespace plegscope {
namespace {

using nlohmann::json;

// Numbers rounded to microseconds: enough for latencies, short on the wire.
double num(double v) {
  if (!std::isfinite(v)) return 0;
  return std::round(v * 1e6) / 1e6;
}

template <typename T>
json opt(const std::optional<T>& v) {
  if (!v) return nullptr;
  if constexpr (std::is_floating_point_v<T>) return num(*v);
  else return *v;
}

template <typename T>
std::optional<T> get_opt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

template <typename T>
T get_or(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

}  // namespace

std::optional<TimePoint> parse_rfc3339(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  char frac[16] = {};
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec) != 6)
    return std::nullopt;
  if (auto dot = text.find('.'); dot != std::string::npos && std::sscanf(text.c_str() + dot + 1, "%9[0-9]", frac) == 1) {
    std::string f = std::string(frac) + "000";
    ms = std::stoi(f.substr(0, 3));
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::time_t secs = timegm(&tm);
  if (secs == static_cast<std::time_t>(-1)) return std::nullopt;
  return TimePoint(std::chrono::seconds(secs)) + std::chrono::milliseconds(ms);
}

json report_to_json(const Report& r) {
  json causes = json::array();
  for (const auto& c : r.causes) {
    json evidence = json::array();
    for (const auto& e : c.evidence)
      evidence.push_back({{"signal", e.signal}, {"value", num(e.value)}, {"threshold", opt(e.threshold)}});
    causes.push_back({{"id", cause_name(c.id)},
                      {"severity", severity_name(c.severity)},
                      {"confidence", num(c.confidence)},
                      {"summary", c.summary},
                      {"evidence", evidence},
                      {"remedy", c.remedy}});
  }
  json operations = json::object();
  for (const auto& [name, o] : r.runtime.operations)
    operations[name] = {{"count", o.count},
                        {"errors", o.errors},
                        {"p50_seconds", num(o.p50_seconds)},
                        {"p99_seconds", num(o.p99_seconds)},
                        {"max_seconds", num(o.max_seconds)},
                        {"in_flight", o.in_flight},
                        {"oldest_in_flight_seconds", num(o.oldest_in_flight_seconds)}};
  json by_type = json::object();
  for (const auto& [type, n] : r.events.by_type) by_type[type] = n;
  json top_pods = json::array();
  for (const auto& p : r.events.top_pods)
    top_pods.push_back({{"uid", p.uid}, {"namespace", p.namespace_}, {"name", p.name}, {"events", p.events}});
  json timeline = json::array();
  for (const auto& e : r.timeline)
    timeline.push_back({{"start", rfc3339(e.start)},
                        {"duration_seconds", num(e.duration_seconds)},
                        {"list_seconds", num(e.list_seconds)},
                        {"status_seconds", num(e.status_seconds)},
                        {"status_calls", e.status_calls},
                        {"pods", e.pods},
                        {"containers", e.containers},
                        {"events", e.events},
                        {"error", e.error ? json(grpc_code_name(*e.error)) : json(nullptr)},
                        {"initial", e.initial},
                        {"in_progress", e.in_progress}});
  return {
      {"node", r.node},
      {"generated_at", rfc3339(r.generated_at)},
      {"healthy", r.healthy},
      {"health_message", r.health_message},
      {"status", status_name(r.status)},
      {"summary", r.summary},
      {"causes", causes},
      {"relist",
       {{"period_seconds", num(r.relist.period_seconds)},
        {"threshold_seconds", num(r.relist.threshold_seconds)},
        {"seconds_since_last_seen", opt(r.relist.seconds_since_last_seen)},
        {"in_progress_seconds", opt(r.relist.in_progress_seconds)},
        {"duration_p50_seconds", num(r.relist.duration_p50_seconds)},
        {"duration_p99_seconds", num(r.relist.duration_p99_seconds)},
        {"events_late_by_seconds", opt(r.relist.events_late_by_seconds)},
        {"mode", r.relist.mode},
        {"evented_fallback_reason", r.relist.evented_fallback_reason
                                        ? json(*r.relist.evented_fallback_reason)
                                        : json(nullptr)}}},
      {"runtime",
       {{"endpoint", r.runtime.endpoint},
        {"name", r.runtime.name},
        {"version", r.runtime.version},
        {"operations", operations}}},
      {"pods",
       {{"sandboxes", r.pods.sandboxes},
        {"containers", r.pods.containers},
        {"running_containers", r.pods.running_containers},
        {"exited_containers", r.pods.exited_containers},
        {"pods_to_reinspect", r.pods.pods_to_reinspect}}},
      {"events",
       {{"per_relist_p99", num(r.events.per_relist_p99)},
        {"by_type", by_type},
        {"discarded_total", r.events.discarded_total},
        {"top_pods", top_pods}}},
      {"node_pressure",
       {{"cpu_some_avg10", opt(r.node_pressure.cpu_some_avg10)},
        {"io_some_avg10", opt(r.node_pressure.io_some_avg10)},
        {"memory_some_avg10", opt(r.node_pressure.memory_some_avg10)},
        {"load1", opt(r.node_pressure.load1)},
        {"pids", opt(r.node_pressure.pids)},
        {"pid_max", opt(r.node_pressure.pid_max)}}},
      {"timeline", timeline},
      {"forecast", {{"seconds_to_unhealthy", opt(r.seconds_to_unhealthy)}}},
  };
}

Report report_from_json(const json& j) {
  if (!j.is_object() || !j.contains("status") || !j.contains("causes"))
    throw std::invalid_argument("not a plegscope /diagnose report (no status or causes)");
  Report r;
  r.node = get_or<std::string>(j, "node", "");
  if (auto t = parse_rfc3339(get_or<std::string>(j, "generated_at", ""))) r.generated_at = *t;
  r.healthy = get_or<bool>(j, "healthy", false);
  r.health_message = get_or<std::string>(j, "health_message", "");
  const std::string status = j.at("status").get<std::string>();
  if (auto s = status_from_name(status)) r.status = *s;
  else throw std::invalid_argument("unknown status \"" + status + "\"");
  r.summary = get_or<std::string>(j, "summary", "");
  for (const auto& c : j.at("causes")) {
    Cause cause;
    const std::string id = c.at("id").get<std::string>();
    auto known = cause_from_name(id);
    if (!known) throw std::invalid_argument("unknown cause id \"" + id + "\"");
    cause.id = *known;
    cause.severity = severity_from_name(get_or<std::string>(c, "severity", "")).value_or(Severity::kWarning);
    cause.confidence = get_or<double>(c, "confidence", 0);
    cause.summary = get_or<std::string>(c, "summary", "");
    cause.remedy = get_or<std::string>(c, "remedy", "");
    if (c.contains("evidence"))
      for (const auto& e : c.at("evidence"))
        cause.evidence.push_back({get_or<std::string>(e, "signal", ""), get_or<double>(e, "value", 0),
                                  get_opt<double>(e, "threshold")});
    r.causes.push_back(std::move(cause));
  }
  if (auto it = j.find("relist"); it != j.end() && it->is_object()) {
    const json& x = *it;
    r.relist.period_seconds = get_or<double>(x, "period_seconds", 1);
    r.relist.threshold_seconds = get_or<double>(x, "threshold_seconds", 180);
    r.relist.seconds_since_last_seen = get_opt<double>(x, "seconds_since_last_seen");
    r.relist.in_progress_seconds = get_opt<double>(x, "in_progress_seconds");
    r.relist.duration_p50_seconds = get_or<double>(x, "duration_p50_seconds", 0);
    r.relist.duration_p99_seconds = get_or<double>(x, "duration_p99_seconds", 0);
    r.relist.events_late_by_seconds = get_opt<double>(x, "events_late_by_seconds");
    r.relist.mode = get_or<std::string>(x, "mode", "generic");
    r.relist.evented_fallback_reason = get_opt<std::string>(x, "evented_fallback_reason");
  }
  if (auto it = j.find("runtime"); it != j.end() && it->is_object()) {
    const json& x = *it;
    r.runtime.endpoint = get_or<std::string>(x, "endpoint", "");
    r.runtime.name = get_or<std::string>(x, "name", "");
    r.runtime.version = get_or<std::string>(x, "version", "");
    if (auto ops = x.find("operations"); ops != x.end() && ops->is_object())
      for (const auto& [name, o] : ops->items()) {
        OperationReport op;
        op.count = get_or<uint64_t>(o, "count", 0);
        op.errors = get_or<uint64_t>(o, "errors", 0);
        op.p50_seconds = get_or<double>(o, "p50_seconds", 0);
        op.p99_seconds = get_or<double>(o, "p99_seconds", 0);
        op.max_seconds = get_or<double>(o, "max_seconds", 0);
        op.in_flight = get_or<int>(o, "in_flight", 0);
        op.oldest_in_flight_seconds = get_or<double>(o, "oldest_in_flight_seconds", 0);
        r.runtime.operations[name] = op;
      }
  }
  if (auto it = j.find("pods"); it != j.end() && it->is_object()) {
    const json& x = *it;
    r.pods.sandboxes = get_or<int>(x, "sandboxes", 0);
    r.pods.containers = get_or<int>(x, "containers", 0);
    r.pods.running_containers = get_or<int>(x, "running_containers", 0);
    r.pods.exited_containers = get_or<int>(x, "exited_containers", 0);
    r.pods.pods_to_reinspect = get_or<int>(x, "pods_to_reinspect", 0);
  }
  if (auto it = j.find("events"); it != j.end() && it->is_object()) {
    const json& x = *it;
    r.events.per_relist_p99 = get_or<double>(x, "per_relist_p99", 0);
    r.events.discarded_total = get_or<uint64_t>(x, "discarded_total", 0);
    if (auto bt = x.find("by_type"); bt != x.end() && bt->is_object())
      for (const auto& [type, n] : bt->items()) r.events.by_type[type] = n.get<uint64_t>();
    if (auto tp = x.find("top_pods"); tp != x.end() && tp->is_array())
      for (const auto& p : *tp)
        r.events.top_pods.push_back({get_or<std::string>(p, "uid", ""), get_or<std::string>(p, "namespace", ""),
                                     get_or<std::string>(p, "name", ""), get_or<int>(p, "events", 0)});
  }
  if (auto it = j.find("node_pressure"); it != j.end() && it->is_object()) {
    const json& x = *it;
    r.node_pressure.cpu_some_avg10 = get_opt<double>(x, "cpu_some_avg10");
    r.node_pressure.io_some_avg10 = get_opt<double>(x, "io_some_avg10");
    r.node_pressure.memory_some_avg10 = get_opt<double>(x, "memory_some_avg10");
    r.node_pressure.load1 = get_opt<double>(x, "load1");
    r.node_pressure.pids = get_opt<int64_t>(x, "pids");
    r.node_pressure.pid_max = get_opt<int64_t>(x, "pid_max");
  }
  if (auto it = j.find("timeline"); it != j.end() && it->is_array())
    for (const auto& e : *it) {
      TimelineEntry t;
      if (auto start = parse_rfc3339(get_or<std::string>(e, "start", ""))) t.start = *start;
      t.duration_seconds = get_or<double>(e, "duration_seconds", 0);
      t.list_seconds = get_or<double>(e, "list_seconds", 0);
      t.status_seconds = get_or<double>(e, "status_seconds", 0);
      t.status_calls = get_or<int>(e, "status_calls", 0);
      t.pods = get_or<int>(e, "pods", 0);
      t.containers = get_or<int>(e, "containers", 0);
      t.events = get_or<int>(e, "events", 0);
      if (auto code = get_opt<std::string>(e, "error")) t.error = grpc_code(grpc_code_from_name(*code));
      t.initial = get_or<bool>(e, "initial", false);
      t.in_progress = get_or<bool>(e, "in_progress", false);
      r.timeline.push_back(std::move(t));
    }
  if (auto it = j.find("forecast"); it != j.end() && it->is_object())
    r.seconds_to_unhealthy = get_opt<double>(*it, "seconds_to_unhealthy");
  return r;
}

}  // namespace plegscope
