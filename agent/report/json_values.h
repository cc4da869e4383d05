#pragma once
// The report's values as JSON, both ways (docs/report.md): the serializers each
// report section (report/sections/) writes and reads its keys with.
// Optional fields are null when absent; enums travel as their names.
#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/grpc_codes.h"
#include "diagnoser/report.h"
#include "report/format.h"
#include "report/wording.h"

// Optional fields are null when absent (§6: "no data is null, not 0").
NLOHMANN_JSON_NAMESPACE_BEGIN
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v)
      j = *v;
    else
      j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null())
      v.reset();
    else
      v = j.get<T>();
  }
};

template <>
struct adl_serializer<plegscope::TimePoint> {
  static void to_json(json& j, const plegscope::TimePoint& t) { j = plegscope::rfc3339(t); }
  static void from_json(const json& j, plegscope::TimePoint& t) {
    auto parsed = plegscope::parse_rfc3339(j.get<std::string>());
    if (!parsed)
      throw std::invalid_argument("bad time \"" + j.get<std::string>() + "\" (expected RFC 3339)");
    t = *parsed;
  }
};
NLOHMANN_JSON_NAMESPACE_END

namespace plegscope {

using nlohmann::json;

namespace json_detail {

// Enums are strings on the wire; a name this build does not know is an
// error, not a silent default (NLOHMANN_JSON_SERIALIZE_ENUM would pick one).
template <typename E>
inline E enum_from(const json& j, const char* what, std::optional<E> (*from_name)(const std::string&)) {
  const auto name = j.get<std::string>();
  if (auto e = from_name(name)) return *e;
  throw std::invalid_argument(std::string("unknown ") + what + " \"" + name + "\"");
}

inline std::optional<GrpcCode> grpc_code_named(const std::string& name) {
  int code = grpc_code_from_name(name);
  if (code < 0) return std::nullopt;
  return grpc_code(code);
}

}  // namespace json_detail

using json_detail::enum_from;
using json_detail::grpc_code_named;

// Found by nlohmann's ADL lookup.
inline void to_json(json& j, CauseId id) { j = cause_name(id); }
inline void from_json(const json& j, CauseId& id) {
  id = enum_from(j, "cause id", cause_from_name);
}
inline void to_json(json& j, Status s) { j = status_name(s); }
inline void from_json(const json& j, Status& s) { s = enum_from(j, "status", status_from_name); }
inline void to_json(json& j, Severity s) { j = severity_name(s); }
inline void from_json(const json& j, Severity& s) {
  s = enum_from(j, "severity", severity_from_name);
}
inline void to_json(json& j, Advice a) { j = advice_name(a); }
inline void from_json(const json& j, Advice& a) { a = enum_from(j, "advice", advice_from_name); }
inline void to_json(json& j, GrpcCode c) { j = grpc_code_name(c); }
inline void from_json(const json& j, GrpcCode& c) {
  c = enum_from(j, "gRPC code", grpc_code_named);
}

// "namespace" is a C++ keyword, so the member is namespace_.
inline void to_json(json& j, const TopPod& p) {
  j = {{"uid", p.uid}, {"namespace", p.namespace_}, {"name", p.name}, {"events", p.events}};
}
inline void from_json(const json& j, TopPod& p) {
  p.uid = j.value("uid", "");
  p.namespace_ = j.value("namespace", "");
  p.name = j.value("name", "");
  p.events = j.value("events", 0);
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Evidence, signal, value, threshold)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Cause, id, severity, confidence, summary, evidence,
                                                remedy, advice)
// The node condition's writes (--node-condition); the typed outcome stays
// inside, `error` is its words.
inline void to_json(json& j, const NodeConditionState& n) {
  j = {{"enabled", n.enabled},   {"status", n.status},         {"reason", n.reason},
       {"message", n.message},   {"last_write", n.last_write}, {"reachable", n.reachable},
       {"error", n.error},       {"writes", n.writes},         {"events", n.events},
       {"failures", n.failures}};
  j["repair"] = {{"status", n.repair_status},     {"advice", n.repair_advice},
                 {"kubelet", n.repair_kubelet},   {"fleet_agents", n.fleet_agents},
                 {"fleet_advising", n.fleet_advising}};
}
inline void from_json(const json& j, NodeConditionState& n) {
  n.enabled = j.value("enabled", n.enabled);
  n.status = j.value("status", n.status);
  n.reason = j.value("reason", n.reason);
  n.message = j.value("message", n.message);
  n.last_write = j.value("last_write", n.last_write);
  n.reachable = j.value("reachable", n.reachable);
  n.error = j.value("error", n.error);
  n.writes = j.value("writes", n.writes);
  n.events = j.value("events", n.events);
  n.failures = j.value("failures", n.failures);
  if (auto r = j.find("repair"); r != j.end() && r->is_object()) {
    n.repair_status = r->value("status", n.repair_status);
    n.repair_advice = r->value("advice", n.repair_advice);
    n.repair_kubelet = r->value("kubelet", n.repair_kubelet);
    n.fleet_agents = r->value("fleet_agents", n.fleet_agents);
    n.fleet_advising = r->value("fleet_advising", n.fleet_advising);
  }
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OperationReport, count, errors, p50_seconds,
                                                p99_seconds, max_seconds, in_flight,
                                                oldest_in_flight_seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TimelineEntry, start, duration_seconds,
                                                list_seconds, status_seconds, status_calls, pods,
                                                containers, events, error, initial, in_progress,
                                                lists_done, pods_changed, pods_inspected)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::Relist, period_seconds, threshold_seconds,
                                                seconds_since_last_seen, in_progress_seconds,
                                                duration_p50_seconds, duration_p99_seconds,
                                                events_late_by_seconds, stretched_period_seconds,
                                                stretch_reason, mode, evented_fallback_reason)
// Per-pod calls and the host section.
inline void to_json(json& j, const PodCallReport& p) {
  j = {{"pod", p.pod}, {"uid", p.uid}, {"sandbox_id", p.sandbox_id}, {"container", p.container},
       {"op", p.op}, {"seconds", p.seconds}, {"in_flight", p.in_flight}};
}
inline void from_json(const json& j, PodCallReport& p) {
  p.pod = j.value("pod", "");
  p.uid = j.value("uid", "");
  p.sandbox_id = j.value("sandbox_id", "");
  p.container = j.value("container", "");
  p.op = j.value("op", "");
  p.seconds = j.value("seconds", 0.0);
  p.in_flight = j.value("in_flight", false);
}
// The kernel's hung-task report, on a blocked process and in host.hung_tasks.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(KernelHungTask, time, comm, pid, tgid, blocked_seconds, kernel, frames,
                                                classes, truncated, predates_stall_seconds)
// "class" is a keyword: the kernel stack's frame_class travels as "class".
inline void to_json(json& j, const HostReport::Blocked::KernelStack& k) {
  j = {{"tid", k.tid}, {"frames", k.frames}, {"top", k.top}, {"class", k.frame_class}};
}
inline void from_json(const json& j, HostReport::Blocked::KernelStack& k) {
  k.tid = j.value("tid", int64_t{0});
  k.frames = j.value("frames", std::vector<std::string>{});
  k.top = j.value("top", "");
  k.frame_class = j.value("class", "");
}
// kernel_stack only when read (--kernel-stacks), as an object.
inline void to_json(json& j, const HostReport::Blocked& b) {
  j = {{"pid", b.pid},         {"comm", b.comm},           {"state", b.state},          {"wchan", b.wchan},
       {"wchan_hidden", b.wchan_hidden}, {"seconds", b.seconds}, {"tid", b.tid},     {"tasks_in_d", b.tasks_in_d},
       {"threads", b.threads}, {"sandbox_id", b.sandbox_id}, {"pod", b.pod}, {"hung_task", b.hung_task}};
  if (b.kernel_stack) to_json(j["kernel_stack"], *b.kernel_stack);
  if (!b.frozen_cgroup.empty()) {
    j["frozen_cgroup"] = b.frozen_cgroup;
    j["freeze_incomplete"] = b.freeze_incomplete;
  }
}
inline void from_json(const json& j, HostReport::Blocked& b) {
  HostReport::Blocked d;
  b.pid = j.value("pid", d.pid);
  b.comm = j.value("comm", d.comm);
  b.state = j.value("state", d.state);
  b.wchan = j.value("wchan", d.wchan);
  b.wchan_hidden = j.value("wchan_hidden", d.wchan_hidden);
  b.seconds = j.value("seconds", d.seconds);
  b.tid = j.value("tid", d.tid);
  b.tasks_in_d = j.value("tasks_in_d", d.tasks_in_d);
  b.threads = j.value("threads", d.threads);
  b.sandbox_id = j.value("sandbox_id", d.sandbox_id);
  b.pod = j.value("pod", d.pod);
  b.frozen_cgroup = j.value("frozen_cgroup", d.frozen_cgroup);
  b.freeze_incomplete = j.value("freeze_incomplete", d.freeze_incomplete);
  if (j.contains("hung_task") && j["hung_task"].is_object()) b.hung_task = j["hung_task"].get<KernelHungTask>();
  if (j.contains("kernel_stack") && j["kernel_stack"].is_object()) {
    HostReport::Blocked::KernelStack k;
    from_json(j["kernel_stack"], k);  // called by name: clang's lookup from nlohmann's get<> misses these statics
    b.kernel_stack = std::move(k);
  }
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::KernelStacks, enabled, available, error, tasks_asked,
                                                tasks_read, read_seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::ZombieParent, pid, comm, count, pod, pod_uid, sandbox_id,
                                                found_by)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::Shim, pid, comm, state, seconds, sandbox_id, container_id,
                                                pod)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::Processes, helpers, blocked, kernel_stacks, zombies,
                                                zombie_parents, shims, shims_total, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::PidLimit, scope, current, max)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::Disk, device, mount, latency_ms, utilization, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::CgroupV2::Stall, resource, some_seconds, full_seconds,
                                                interval_seconds)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::CgroupV2::Unit, role, path, owner, pod_uid, pod,
                                                container_id, populated, frozen, freeze, pids_current, pids_max,
                                                pids_events_max, pids_events_local_max, memory_high, memory_oom_kill,
                                                nr_dying_descendants, pressure, unavailable, error)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::CgroupV2::Divergence, kind, container_id, pod_uid, pod,
                                                runtime_state, path)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport::CgroupV2, mode, root, driver, pods_read, containers, units,
                                                divergences, divergence_checked)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostReport, reachable, error, processes, pid_limits, runtime_disk,
                                                hung_tasks, hung_tasks_suppressed_since, cgroup_v2)

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::Runtime, endpoint, name, version,
                                                operations, slowest_pods)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::Pods, sandboxes, containers,
                                                running_containers, exited_containers,
                                                pods_to_reinspect)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::Events, per_relist_p99, by_type,
                                                discarded_total, top_pods)
// Event lag: "namespace" is a keyword, as for TopPod.
inline void to_json(json& j, const LagPod& p) {
  j = {{"uid", p.uid},           {"namespace", p.namespace_},   {"name", p.name},
       {"container", p.container}, {"event_type", p.event_type}, {"lag_seconds", p.lag_seconds}};
}
inline void from_json(const json& j, LagPod& p) {
  p.uid = j.value("uid", "");
  p.namespace_ = j.value("namespace", "");
  p.name = j.value("name", "");
  p.container = j.value("container", "");
  p.event_type = j.value("event_type", "");
  p.lag_seconds = j.value("lag_seconds", 0.0);
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::EventLag::Figures, count, p50_seconds,
                                                p99_seconds, invalid)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::EventLag::Evented, delivery, cache_update)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::EventLag, p50_seconds, p99_seconds, events,
                                                invalid, worst_pods, evented)

// Journal marks and their source.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(JournalEntry, time, unit, kind, message)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::JournalSource, reachable, path, error,
                                                kubelet_unit, runtime_units)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::Pressure, cpu_some_avg10, io_some_avg10,
                                                memory_some_avg10, load1, pids, pid_max)

// The kubelet and the runtime's metrics (docs/report.md); "tls_mode"
// says which verification the kubelet scrape uses. The typed outcome is not
// on the wire: "error" carries its words.
inline void to_json(json& j, const Report::Kubelet& k) {
  j = {{"endpoint", k.endpoint},
       {"reachable", k.reachable},
       {"error", k.error},
       {"version", k.version},
       {"model", k.model},
       {"model_release", k.model_release},
       {"model_source", k.model_source},
       {"tls_mode", k.tls_mode},
       {"last_seen_age_seconds", k.last_seen_age_seconds},
       {"relist_p99_seconds", k.relist_p99_seconds},
       {"relists_per_minute", k.relists_per_minute},
       {"ready_message", k.ready_message},
       {"ready_error", k.ready_error}};
}
inline void from_json(const json& j, Report::Kubelet& k) {
  k.endpoint = j.value("endpoint", k.endpoint);
  k.reachable = j.value("reachable", k.reachable);
  k.error = j.value("error", k.error);
  k.version = j.value("version", k.version);
  k.model = j.value("model", k.model);
  k.model_release = j.value("model_release", k.model_release);
  k.model_source = j.value("model_source", k.model_source);
  k.tls_mode = j.value("tls_mode", k.tls_mode);
  k.last_seen_age_seconds = j.value("last_seen_age_seconds", k.last_seen_age_seconds);
  k.relist_p99_seconds = j.value("relist_p99_seconds", k.relist_p99_seconds);
  k.relists_per_minute = j.value("relists_per_minute", k.relists_per_minute);
  k.ready_message = j.value("ready_message", k.ready_message);
  k.ready_error = j.value("ready_error", k.ready_error);
}
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Report::InFlightMethod, method, count, seconds)
inline void to_json(json& j, const Report::RuntimeMetrics& m) {
  j = {{"endpoint", m.endpoint}, {"reachable", m.reachable}, {"error", m.error}, {"in_flight", m.in_flight}};
}
inline void from_json(const json& j, Report::RuntimeMetrics& m) {
  m.endpoint = j.value("endpoint", m.endpoint);
  m.reachable = j.value("reachable", m.reachable);
  m.error = j.value("error", m.error);
  m.in_flight = j.value("in_flight", m.in_flight);
}

// The runtime's Status as the kubelet reads it, and its NotReady paths.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RuntimeConditionValue, type, status, reason, message)
inline void to_json(json& j, const Report::RuntimeStatus& r) {
  j = {{"enabled", r.enabled},
       {"seconds_since_success", r.seconds_since_success},
       {"in_flight_seconds", r.in_flight_seconds},
       {"runtime_down", r.runtime_down},
       {"runtime_ready", r.runtime_ready},
       {"network_ready", r.network_ready},
       {"last_error", r.last_error},
       {"failures_in_a_row", r.failures_in_a_row},
       {"kubelet_errors", r.kubelet_errors},
       {"not_ready_path", r.not_ready_path},
       {"not_ready_in_seconds", r.not_ready_in_seconds},
       {"ready_message_path", r.ready_message_path}};
}
inline void from_json(const json& j, Report::RuntimeStatus& r) {
  r.enabled = j.value("enabled", r.enabled);
  r.seconds_since_success = j.value("seconds_since_success", r.seconds_since_success);
  r.in_flight_seconds = j.value("in_flight_seconds", r.in_flight_seconds);
  r.runtime_down = j.value("runtime_down", r.runtime_down);
  r.runtime_ready = j.value("runtime_ready", r.runtime_ready);
  r.network_ready = j.value("network_ready", r.network_ready);
  r.last_error = j.value("last_error", r.last_error);
  r.failures_in_a_row = j.value("failures_in_a_row", r.failures_in_a_row);
  r.kubelet_errors = j.value("kubelet_errors", r.kubelet_errors);
  r.not_ready_path = j.value("not_ready_path", r.not_ready_path);
  r.not_ready_in_seconds = j.value("not_ready_in_seconds", r.not_ready_in_seconds);
  r.ready_message_path = j.value("ready_message_path", r.ready_message_path);
}

}  // namespace plegscope
