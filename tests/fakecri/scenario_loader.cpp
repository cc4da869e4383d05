#include "scenario_loader.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "go_duration.h"
#include "grpc_codes.h"

namespace fakecri {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ScenarioError(path + ": " + what);
}

void expect_object(const json& j, const std::string& path) {
  if (!j.is_object()) fail(path, "expected an object");
}

void check_keys(const json& j, const std::string& path, const std::set<std::string>& allowed) {
  expect_object(j, path);
  for (const auto& [key, value] : j.items()) {
    if (!allowed.count(key)) fail(path + "." + key, "unknown key");
  }
}

std::string get_string(const json& j, const std::string& path) {
  if (!j.is_string()) fail(path, "expected a string");
  return j.get<std::string>();
}

bool get_bool(const json& j, const std::string& path) {
  if (!j.is_boolean()) fail(path, "expected true or false");
  return j.get<bool>();
}

long long get_int(const json& j, const std::string& path, long long min, long long max) {
  if (!j.is_number_integer()) fail(path, "expected an integer");
  long long v = j.get<long long>();
  if (v < min || v > max) {
    fail(path, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return v;
}

double get_number(const json& j, const std::string& path, double min, double max) {
  if (!j.is_number()) fail(path, "expected a number");
  double v = j.get<double>();
  if (v < min || v > max) {
    std::ostringstream os;
    os << "expected a number in [" << min << ", " << max << "]";
    fail(path, os.str());
  }
  return v;
}

Duration get_duration(const json& j, const std::string& path) {
  if (!j.is_string()) fail(path, "expected a Go duration string like \"300ms\"");
  auto d = parse_go_duration(j.get<std::string>());
  if (!d) fail(path, "invalid duration \"" + j.get<std::string>() + "\" (Go syntax: 300ms, 1m30s)");
  return *d;
}

grpc::StatusCode get_code(const json& j, const std::string& path) {
  std::string name = get_string(j, path);
  auto code = parse_status_code(name);
  if (!code || *code == grpc::StatusCode::OK) {
    fail(path, "unknown gRPC status code \"" + name + "\" (e.g. UNAVAILABLE)");
  }
  return *code;
}

// Per-operation maps ("latency", "errors", "hangs"): keys are method names or
// the groups "*", "mutating", "lists", "statuses". More specific keys win.
template <typename Apply>
void for_each_op_key(const json& j, const std::string& path, Apply apply) {
  expect_object(j, path);
  static const char* kGroupOrder[] = {"*", "mutating", "lists", "statuses"};
  for (const char* group : kGroupOrder) {
    if (j.contains(group)) {
      const std::vector<Op> ops = *op_group(group);  // not a range-for over a temporary's member
      for (Op op : ops) apply(op, j.at(group), path + "." + group);
    }
  }
  for (const auto& [key, value] : j.items()) {
    if (op_group(key)) continue;
    auto op = parse_op(key);
    if (!op) fail(path + "." + key, "unknown operation (use a RuntimeService method name, \"*\", \"lists\", \"statuses\" or \"mutating\")");
    apply(*op, value, path + "." + key);
  }
}

LatencySpec parse_latency(const json& j, const std::string& path) {
  LatencySpec spec;
  if (j.is_string()) {
    spec.fixed = get_duration(j, path);
    return spec;
  }
  check_keys(j, path, {"fixed", "jitter", "per_item", "unfiltered_only"});
  if (j.contains("fixed")) spec.fixed = get_duration(j["fixed"], path + ".fixed");
  if (j.contains("jitter")) spec.jitter = get_duration(j["jitter"], path + ".jitter");
  if (j.contains("per_item")) spec.per_item = get_duration(j["per_item"], path + ".per_item");
  if (j.contains("unfiltered_only")) {
    spec.unfiltered_only = get_bool(j["unfiltered_only"], path + ".unfiltered_only");
  }
  return spec;
}

// "pods": K (the first K pods) or [ordinal, ...] (exactly those).
PodSelector parse_pods(const json& j, const std::string& path) {
  PodSelector pods;
  if (j.is_array()) {
    if (j.empty()) fail(path, "an empty list selects no pod (omit \"pods\" for every call)");
    for (size_t i = 0; i < j.size(); ++i)
      pods.ordinals.push_back(static_cast<int>(get_int(j[i], path + "[" + std::to_string(i) + "]", 0, 1'000'000)));
  } else {
    pods.first = static_cast<int>(get_int(j, path, 0, 1'000'000));
  }
  return pods;
}

ErrorSpec parse_error(const json& j, const std::string& path) {
  check_keys(j, path, {"code", "rate", "pods", "message"});
  if (!j.contains("code")) fail(path + ".code", "missing");
  ErrorSpec spec;
  spec.code = get_code(j["code"], path + ".code");
  if (j.contains("rate")) spec.rate = get_number(j["rate"], path + ".rate", 0.0, 1.0);
  if (j.contains("pods")) spec.pods = parse_pods(j["pods"], path + ".pods");
  spec.message = j.contains("message") ? get_string(j["message"], path + ".message")
                                       : std::string("fakecri: injected ") + status_code_name(spec.code);
  return spec;
}

std::vector<ErrorSpec> parse_errors(const json& j, const std::string& path) {
  std::vector<ErrorSpec> specs;
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) specs.push_back(parse_error(j[i], path + "[" + std::to_string(i) + "]"));
  } else if (!j.is_null()) {
    specs.push_back(parse_error(j, path));
  }
  return specs;
}

std::optional<HangSpec> parse_hang(const json& j, const std::string& path) {
  if (j.is_null() || (j.is_boolean() && !j.get<bool>())) return std::nullopt;
  if (j.is_boolean()) return HangSpec{};
  check_keys(j, path, {"duration", "pods"});
  HangSpec spec;
  if (j.contains("duration")) spec.duration = get_duration(j["duration"], path + ".duration");
  if (j.contains("pods")) spec.pods = parse_pods(j["pods"], path + ".pods");
  return spec;
}

ChurnSpec parse_churn(const json& j, const std::string& path) {
  check_keys(j, path, {"crashloop_pods", "crashloop_restarts_per_second", "keep_exited_attempts",
                       "exited_per_second", "keep_exited_jobs_per_pod", "pods_created_per_second", "pods_deleted_per_second"});
  ChurnSpec c;
  constexpr double kMaxRate = 100000;
  if (j.contains("crashloop_pods")) c.crashloop_pods = static_cast<int>(get_int(j["crashloop_pods"], path + ".crashloop_pods", 0, 1'000'000));
  if (j.contains("crashloop_restarts_per_second")) c.crashloop_restarts_per_second = get_number(j["crashloop_restarts_per_second"], path + ".crashloop_restarts_per_second", 0, kMaxRate);
  if (j.contains("keep_exited_attempts")) c.keep_exited_attempts = static_cast<int>(get_int(j["keep_exited_attempts"], path + ".keep_exited_attempts", -1, 1'000'000));
  if (j.contains("exited_per_second")) c.exited_per_second = get_number(j["exited_per_second"], path + ".exited_per_second", 0, kMaxRate);
  if (j.contains("keep_exited_jobs_per_pod")) c.keep_exited_jobs_per_pod = static_cast<int>(get_int(j["keep_exited_jobs_per_pod"], path + ".keep_exited_jobs_per_pod", -1, 1'000'000));
  if (j.contains("pods_created_per_second")) c.pods_created_per_second = get_number(j["pods_created_per_second"], path + ".pods_created_per_second", 0, kMaxRate);
  if (j.contains("pods_deleted_per_second")) c.pods_deleted_per_second = get_number(j["pods_deleted_per_second"], path + ".pods_deleted_per_second", 0, kMaxRate);
  return c;
}

const std::set<std::string> kBehaviourKeys = {"latency", "errors",    "hangs",     "churn",
                                              "socket",  "pad_bytes", "events",    "conditions"};

ConditionSpec parse_condition(const json& j, const std::string& path) {
  check_keys(j, path, {"status", "reason", "message"});
  ConditionSpec c;
  if (j.contains("status")) c.status = get_bool(j["status"], path + ".status");
  if (j.contains("reason")) c.reason = get_string(j["reason"], path + ".reason");
  if (j.contains("message")) c.message = get_string(j["message"], path + ".message");
  return c;
}

// `j` is the phase merged onto the scenario's "defaults".
void parse_behaviour(const json& j, const std::string& path, PhaseSpec& phase) {
  if (j.contains("latency")) {
    for_each_op_key(j["latency"], path + ".latency", [&](Op op, const json& v, const std::string& p) {
      phase.ops[index(op)].latency = parse_latency(v, p);
    });
  }
  if (j.contains("errors")) {
    for_each_op_key(j["errors"], path + ".errors", [&](Op op, const json& v, const std::string& p) {
      phase.ops[index(op)].errors = parse_errors(v, p);
    });
  }
  if (j.contains("hangs")) {
    for_each_op_key(j["hangs"], path + ".hangs", [&](Op op, const json& v, const std::string& p) {
      phase.ops[index(op)].hang = parse_hang(v, p);
    });
  }
  if (j.contains("churn")) phase.churn = parse_churn(j["churn"], path + ".churn");
  if (j.contains("socket")) {
    std::string s = get_string(j["socket"], path + ".socket");
    if (s != "up" && s != "down") fail(path + ".socket", "expected \"up\" or \"down\"");
    phase.socket_up = s == "up";
  }
  if (j.contains("pad_bytes")) {
    phase.pad_bytes = static_cast<size_t>(get_int(j["pad_bytes"], path + ".pad_bytes", 0, 64LL << 20));
  }
  if (j.contains("conditions")) {
    const json& c = j["conditions"];
    check_keys(c, path + ".conditions", {"runtime_ready", "network_ready"});
    if (c.contains("runtime_ready"))
      phase.conditions.runtime_ready = parse_condition(c["runtime_ready"], path + ".conditions.runtime_ready");
    if (c.contains("network_ready"))
      phase.conditions.network_ready = parse_condition(c["network_ready"], path + ".conditions.network_ready");
  }
  if (j.contains("events")) {
    const json& e = j["events"];
    check_keys(e, path + ".events", {"break_after", "code", "garbage", "created_at_ahead", "created_at_zero"});
    if (e.contains("created_at_ahead"))
      phase.events.created_at_ahead = get_duration(e["created_at_ahead"], path + ".events.created_at_ahead");
    if (e.contains("created_at_zero"))
      phase.events.created_at_zero = get_bool(e["created_at_zero"], path + ".events.created_at_zero");
    if (e.contains("garbage")) phase.events.garbage = get_bool(e["garbage"], path + ".events.garbage");
    if (e.contains("break_after")) phase.events.break_after = static_cast<int>(get_int(e["break_after"], path + ".events.break_after", 0, 1'000'000'000));
    if (e.contains("code")) phase.events.break_code = get_code(e["code"], path + ".events.code");
  }
}

void parse_node(const json& j, NodeShape& node) {
  const std::string path = "node";
  check_keys(j, path, {"pods", "containers_per_pod", "exited_per_pod", "namespaces",
                       "pod_name_prefix", "unlabeled_pods", "initial_age"});
  if (j.contains("pods")) node.pods = static_cast<int>(get_int(j["pods"], path + ".pods", 0, 200'000));
  if (j.contains("containers_per_pod")) node.containers_per_pod = static_cast<int>(get_int(j["containers_per_pod"], path + ".containers_per_pod", 0, 1000));
  if (j.contains("exited_per_pod")) node.exited_per_pod = static_cast<int>(get_int(j["exited_per_pod"], path + ".exited_per_pod", 0, 100'000));
  if (j.contains("namespaces")) {
    const json& ns = j["namespaces"];
    node.namespaces.clear();
    if (ns.is_number_integer()) {
      long long n = get_int(ns, path + ".namespaces", 1, 10'000);
      for (long long i = 0; i < n; ++i) node.namespaces.push_back("ns-" + std::to_string(i));
    } else if (ns.is_array() && !ns.empty()) {
      for (size_t i = 0; i < ns.size(); ++i) node.namespaces.push_back(get_string(ns[i], path + ".namespaces[" + std::to_string(i) + "]"));
    } else {
      fail(path + ".namespaces", "expected a count or a non-empty list of names");
    }
  }
  if (j.contains("pod_name_prefix")) node.pod_name_prefix = get_string(j["pod_name_prefix"], path + ".pod_name_prefix");
  if (j.contains("unlabeled_pods")) node.unlabeled_pods = static_cast<int>(get_int(j["unlabeled_pods"], path + ".unlabeled_pods", 0, 200'000));
  if (j.contains("initial_age")) node.initial_age = get_duration(j["initial_age"], path + ".initial_age");
  long long total = static_cast<long long>(node.pods) * (node.containers_per_pod + node.exited_per_pod);
  if (total > 2'000'000) fail(path, "more than 2,000,000 containers");
}

void parse_runtime(const json& j, RuntimeInfo& rt) {
  check_keys(j, "runtime", {"name", "version", "container_events", "list_streaming", "list_stream_batch",
                         "runtime_config"});
  if (j.contains("name")) rt.name = get_string(j["name"], "runtime.name");
  if (j.contains("version")) rt.version = get_string(j["version"], "runtime.version");
  if (j.contains("container_events")) rt.container_events = get_bool(j["container_events"], "runtime.container_events");
  if (j.contains("runtime_config")) rt.runtime_config = get_bool(j["runtime_config"], "runtime.runtime_config");
  if (j.contains("list_streaming")) rt.list_streaming = get_bool(j["list_streaming"], "runtime.list_streaming");
  if (j.contains("list_stream_batch"))
    rt.list_stream_batch = static_cast<int>(get_int(j["list_stream_batch"], "runtime.list_stream_batch", 1, 1'000'000));
}

}  // namespace

Scenario parse_scenario(const std::string& json_text) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw ScenarioError(std::string("invalid JSON: ") + e.what());
  }
  check_keys(root, "scenario", {"name", "description", "seed", "runtime", "node", "defaults", "phases", "loop"});
  Scenario s;
  if (root.contains("name")) s.name = get_string(root["name"], "name");
  if (root.contains("description")) s.description = get_string(root["description"], "description");
  if (root.contains("seed")) s.seed = static_cast<uint64_t>(get_int(root["seed"], "seed", 0, INT64_MAX));
  if (root.contains("loop")) s.loop = get_bool(root["loop"], "loop");
  if (root.contains("runtime")) parse_runtime(root["runtime"], s.runtime);
  if (root.contains("node")) parse_node(root["node"], s.node);

  json defaults = json::object();
  if (root.contains("defaults")) {
    check_keys(root["defaults"], "defaults", kBehaviourKeys);
    defaults = root["defaults"];
  }
  json phases = root.contains("phases") ? root["phases"] : json::array({json{{"name", "default"}}});
  if (!phases.is_array() || phases.empty()) fail("phases", "expected a non-empty array");

  std::set<std::string> names;
  for (size_t i = 0; i < phases.size(); ++i) {
    const std::string path = "phases[" + std::to_string(i) + "]";
    std::set<std::string> allowed = kBehaviourKeys;
    allowed.insert({"name", "duration"});
    check_keys(phases[i], path, allowed);
    PhaseSpec phase;
    phase.name = phases[i].contains("name") ? get_string(phases[i]["name"], path + ".name")
                                            : "phase" + std::to_string(i);
    if (!names.insert(phase.name).second) fail(path + ".name", "duplicate phase name \"" + phase.name + "\"");
    if (phases[i].contains("duration")) {
      phase.duration = get_duration(phases[i]["duration"], path + ".duration");
      if (phase.duration->count() <= 0) fail(path + ".duration", "must be positive");
    }
    bool last = i + 1 == phases.size();
    if (!phase.duration && (!last || s.loop)) {
      fail(path + ".duration", "missing (only the last phase of a non-looping scenario may last forever)");
    }
    json merged = defaults;
    json own = phases[i];
    own.erase("name");
    own.erase("duration");
    merged.merge_patch(own);
    parse_behaviour(merged, path, phase);
    s.phases.push_back(std::move(phase));
  }
  return s;
}

Scenario load_scenario_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError("cannot read file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_scenario(buffer.str());
}

}  // namespace fakecri
