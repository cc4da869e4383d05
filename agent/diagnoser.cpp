#include "diagnoser.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "cri/runtime_client.h"
#include "number_format.h"

namespace plegscope {
namespace {

// ---------------------------------------------------------------- helpers

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double clamp01(double x) { return std::max(0.0, std::min(1.0, x)); }
// No measurement makes a diagnosis certain.
constexpr double kMaxConfidence = 0.98;
double round2(double x) { return std::round(x * 100) / 100; }

// "250ms", "1.5s", "3m4s", "1h2m"
std::string human_seconds(double s) {
  char buf[64];
  if (s < 0) s = 0;
  if (s < 1) {
    std::snprintf(buf, sizeof(buf), "%.0fms", s * 1000);
  } else if (s < 10) {
    std::snprintf(buf, sizeof(buf), s == std::floor(s) ? "%.0fs" : "%.1fs", s);
  } else if (s < 60) {
    std::snprintf(buf, sizeof(buf), "%.0fs", s);
  } else if (s < 3600) {
    long t = std::lround(s);
    std::snprintf(buf, sizeof(buf), "%ldm%lds", t / 60, t % 60);
  } else {
    long t = std::lround(s);
    std::snprintf(buf, sizeof(buf), "%ldh%ldm", t / 3600, (t % 3600) / 60);
  }
  return buf;
}

std::string human_bytes(double b) {
  char buf[64];
  if (b >= 1024 * 1024 && std::fmod(b, 1024 * 1024) == 0) std::snprintf(buf, sizeof(buf), "%.0f MiB", b / (1024 * 1024));
  else if (b >= 1024 * 1024) std::snprintf(buf, sizeof(buf), "%.1f MiB", b / (1024 * 1024));
  else if (b >= 1024) std::snprintf(buf, sizeof(buf), "%.0f KiB", b / 1024);
  else std::snprintf(buf, sizeof(buf), "%.0f B", b);
  return buf;
}

// "1 relist", "3 relists"
std::string relists(int n) { return std::to_string(n) + (n == 1 ? " relist" : " relists"); }

using text::fmt;

// The CRI method behind an operation label, as operators know it from crictl
// and runtime logs.
std::string cri_method(const std::string& op) {
  static const std::map<std::string, std::string> names = {
      {op::kVersion, "Version"},
      {op::kStatus, "Status"},
      {op::kListPodSandbox, "ListPodSandbox"},
      {op::kListContainers, "ListContainers"},
      {op::kPodSandboxStatus, "PodSandboxStatus"},
      {op::kContainerStatus, "ContainerStatus"},
      {op::kGetContainerEvents, "GetContainerEvents"},
      {op::kStreamPodSandboxes, "StreamPodSandboxes"},
      {op::kStreamContainers, "StreamContainers"}};
  auto it = names.find(op);
  return it == names.end() ? op : it->second;
}

bool is_list_op(const std::string& op) {
  return op == op::kListPodSandbox || op == op::kListContainers ||
         op == op::kStreamPodSandboxes || op == op::kStreamContainers;
}
bool is_status_op(const std::string& op) {
  return op == op::kPodSandboxStatus || op == op::kContainerStatus;
}

// The runtime's service name for remedies.
std::string service_name(const Snapshot& s) {
  std::string n = s.runtime_name;
  std::transform(n.begin(), n.end(), n.begin(), ::tolower);
  if (n.find("containerd") != std::string::npos) return "containerd";
  if (n.find("cri-o") != std::string::npos || n.find("crio") != std::string::npos) return "crio";
  if (n.find("docker") != std::string::npos) return "cri-docker";
  if (s.endpoint.find("crio") != std::string::npos) return "crio";
  if (s.endpoint.find("cri-dockerd") != std::string::npos) return "cri-docker";
  return "containerd";
}

std::string crictl(const Snapshot& s) {
  return "crictl --runtime-endpoint " + (s.endpoint.empty() ? std::string("<endpoint>") : s.endpoint);
}

// What the rules share: the recent window of relists and figures over it.
struct Context {
  Context(const Snapshot& snapshot, const DiagnoserThresholds& thresholds) : s(snapshot), t(thresholds) {}
  const Snapshot& s;
  const DiagnoserThresholds& t;
  std::vector<const RelistRecord*> window;     // started within window_seconds, oldest first
  std::vector<const RelistRecord*> window_ok;  // ... and succeeded
  const RelistRecord* last_ok = nullptr;       // newest successful relist, any age
  double list_p50 = 0;                         // median time in list calls (window_ok)
  double relist_p50 = 0;                       // median relist duration (window_ok)
  double status_share = 0;                     // status time / relist time (window_ok)
  double list_share = 0;                       // list time / relist time (window_ok)
  int objects = 0;                             // sandboxes + containers in last_ok
  std::string hung_op;                         // op with the oldest call past the hang threshold
  double hung_seconds = 0;
  bool enough() const { return window_ok.size() >= 3; }
};

const RelistRecord* first_ok(const Snapshot& s) {
  for (const auto& r : s.timeline)
    if (!r.error_code) return &r;
  return nullptr;
}

Context make_context(const Snapshot& s, const DiagnoserThresholds& t) {
  Context c(s, t);
  // The first good relist in the timeline finds every pod new (an event for
  // every container) and pays for inspecting them all: a warm-up, not a
  // storm. It is left out of the window.
  const RelistRecord* warmup = first_ok(s);
  // A slow relist period (evented mode: 300 s) still leaves a few relists to judge.
  const double window = std::max(t.window_seconds, 5 * to_seconds(s.relist_period));
  for (const auto& r : s.timeline) {
    if (&r != warmup && to_seconds(s.now - r.start) <= window) {
      c.window.push_back(&r);
      if (!r.error_code) c.window_ok.push_back(&r);
    }
    if (!r.error_code) c.last_ok = &r;
  }
  std::vector<double> lists, durations;
  double total = 0, status = 0, list = 0;
  for (const auto* r : c.window_ok) {
    lists.push_back(to_seconds(r->list_time));
    durations.push_back(to_seconds(r->duration));
    total += to_seconds(r->duration);
    status += to_seconds(r->status_time);
    list += to_seconds(r->list_time);
  }
  c.list_p50 = quantile(lists, 0.5);
  c.relist_p50 = quantile(durations, 0.5);
  if (c.window_ok.empty() && c.last_ok) {  // only the warm-up so far: better than nothing
    c.list_p50 = to_seconds(c.last_ok->list_time);
    c.relist_p50 = to_seconds(c.last_ok->duration);
  }
  if (total > 0) {
    c.status_share = status / total;
    c.list_share = list / total;
  }
  if (c.last_ok) c.objects = c.last_ok->sandboxes + c.last_ok->containers;
  for (const auto& [name, st] : s.operations) {
    if (name == op::kGetContainerEvents) continue;  // a long-lived stream, not a call
    if (st.in_flight > 0 && st.oldest_in_flight_seconds > c.hung_seconds) {
      c.hung_seconds = st.oldest_in_flight_seconds;
      c.hung_op = name;
    }
  }
  return c;
}

// Trailing relists (newest backwards) whose error code is `code`.
int trailing_errors(const Snapshot& s, const std::string& code) {
  int n = 0;
  for (auto it = s.timeline.rbegin(); it != s.timeline.rend(); ++it) {
    if (!it->error_code || *it->error_code != code) break;
    ++n;
  }
  return n;
}

int window_errors(const Context& c, const std::string& code) {
  int n = 0;
  for (const auto* r : c.window) n += r->error_code && *r->error_code == code;
  return n;
}

uint64_t op_errors(const Snapshot& s, const std::string& code, bool (*which)(const std::string&)) {
  uint64_t n = 0;
  for (const auto& [name, st] : s.operations) {
    if (!which(name)) continue;
    if (auto it = st.errors_by_code.find(code); it != st.errors_by_code.end()) n += it->second;
  }
  return n;
}

Cause make(const char* id, const char* severity, double confidence) {
  Cause c;
  c.id = id;
  c.severity = severity;
  c.confidence = round2(std::min(kMaxConfidence, clamp01(confidence)));
  return c;
}

// ------------------------------------------------------------------ rules
// Each returns nullopt when its cause is not present.

std::optional<Cause> rule_runtime_unavailable(const Context& c) {
  const Snapshot& s = c.s;
  int trailing = trailing_errors(s, "UNAVAILABLE");
  int in_window = window_errors(c, "UNAVAILABLE");
  bool socket_missing = s.socket_present.has_value() && !*s.socket_present;
  if (trailing < c.t.unavailable_relists && in_window == 0) return std::nullopt;

  Cause cause;
  if (trailing >= c.t.unavailable_relists) {
    cause = make(cause::kRuntimeUnavailable, "critical",
                 0.75 + 0.05 * std::min(3, trailing - 1) + (socket_missing ? 0.1 : 0));
    cause.reason = socket_missing
                       ? "the CRI socket " + s.endpoint + " does not exist"
                       : "the runtime at " + s.endpoint + " answers UNAVAILABLE (" + relists(trailing) +
                             " in a row failed)";
    cause.action = socket_missing ? "start the runtime service, or fix the endpoint"
                                  : "check why the runtime service is down";
  } else {
    // Flapping: some recent relists failed, the last one did not.
    double share = c.window.empty() ? 0 : static_cast<double>(in_window) / c.window.size();
    cause = make(cause::kRuntimeUnavailable, "warning", 0.4 + 0.25 * share);
    cause.reason = "the runtime answered UNAVAILABLE in " + std::to_string(in_window) + " of the last " +
                   std::to_string(c.window.size()) + " relists";
    cause.action = "check the runtime's logs for restarts";
  }
  cause.summary = "The container runtime is unreachable: " + cause.reason + ".";
  cause.evidence.push_back({"relists_failed_unavailable_in_a_row", static_cast<double>(trailing),
                            static_cast<double>(c.t.unavailable_relists)});
  cause.evidence.push_back({"relist_errors_in_window{UNAVAILABLE}", static_cast<double>(in_window), 0});
  if (s.socket_present) cause.evidence.push_back({"socket_present", *s.socket_present ? 1.0 : 0.0, 1});
  if (s.last_seen)
    cause.evidence.push_back({"seconds_since_last_seen", to_seconds(s.now - *s.last_seen),
                              to_seconds(s.relist_threshold)});
  std::string svc = service_name(s);
  cause.remedy = "Confirm: `" + crictl(s) + " info` and `ls -l " +
                 (s.endpoint.rfind("unix://", 0) == 0 ? s.endpoint.substr(7) : s.endpoint) +
                 "`; `systemctl status " + svc + "` and `journalctl -u " + svc +
                 " --since -15min` show why it stopped or restarts. Usually fixed by: starting or "
                 "restarting the runtime service once its logs show the cause (disk full, bad "
                 "config after an upgrade, OOM kill); make sure the kubelet's "
                 "--container-runtime-endpoint names the same socket. Do not reboot the node for "
                 "this: running containers survive a runtime restart.";
  return cause;
}

std::optional<Cause> rule_runtime_hung(const Context& c) {
  const Snapshot& s = c.s;
  double hang = c.t.hang_seconds;
  int deadline = window_errors(c, "DEADLINE_EXCEEDED");
  if (c.hung_op.empty() || c.hung_seconds <= hang) {
    if (deadline == 0) return std::nullopt;
    // A hang that already reached the deadline (--runtime-request-timeout).
    Cause cause = make(cause::kRuntimeHung, "critical", 0.7);
    cause.reason = "list calls hit their deadline (DEADLINE_EXCEEDED) in " + std::to_string(deadline) +
                   " recent relists";
    cause.action = "capture the runtime's goroutine dump, then restart it";
    cause.summary = "The runtime stopped answering: " + cause.reason + ".";
    cause.evidence.push_back({"relist_errors_in_window{DEADLINE_EXCEEDED}", static_cast<double>(deadline), 0});
    cause.remedy = "Confirm: `timeout 10 " + crictl(s) + " ps -a` times out too. Then as for a hang: capture "
                   "the runtime's goroutine dump and restart the runtime service.";
    return cause;
  }
  double over = (c.hung_seconds - hang) / (2 * hang);
  Cause cause = make(cause::kRuntimeHung, "critical", 0.8 + 0.15 * clamp01(over));
  const auto& st = s.operations.at(c.hung_op);
  cause.reason = cri_method(c.hung_op) + " has been in flight for " + human_seconds(c.hung_seconds) +
                 " (hang threshold " + human_seconds(hang) + ")";
  cause.action = "the runtime is hung; capture its goroutine dump, then restart it";
  cause.summary = "A CRI call is hung: " + cause.reason + ", so the relist cannot finish.";
  cause.evidence.push_back({"oldest_in_flight_seconds{" + c.hung_op + "}", c.hung_seconds, hang});
  cause.evidence.push_back({"in_flight{" + c.hung_op + "}", static_cast<double>(st.in_flight), {}});
  if (s.relist_in_progress_since)
    cause.evidence.push_back({"relist_in_progress_seconds", to_seconds(s.now - *s.relist_in_progress_since),
                              to_seconds(s.relist_threshold)});
  if (s.last_seen)
    cause.evidence.push_back({"seconds_since_last_seen", to_seconds(s.now - *s.last_seen),
                              to_seconds(s.relist_threshold)});
  std::string svc = service_name(s);
  std::string dump = svc == "crio" ? "`kill -USR1 $(pidof crio)` (goroutines go to /tmp/crio-goroutine-stacks-*.log)"
                                   : "`kill -USR1 $(pidof " + svc + ")` (goroutines go to `journalctl -u " + svc + "`)";
  cause.remedy = "Confirm: `timeout 10 " + crictl(s) + " ps -a` hangs too; capture the runtime's goroutine dump with " +
                 dump + " and look for calls stuck on a shim, a mount or storage; `dmesg | grep -i 'blocked for more'` "
                 "shows processes stuck in D state. Usually fixed by: restarting the runtime service (`systemctl restart " +
                 svc + "`, running containers keep running) after saving the dump, and fixing what it was blocked on "
                 "(a wedged shim: kill that shim; a hung NFS/iSCSI mount; a full or failing disk). If it hangs again, "
                 "cordon and drain the node by hand; never reboot nodes automatically.";
  return cause;
}

std::optional<Cause> rule_runtime_slow(const Context& c) {
  if (!c.enough() || c.list_p50 < c.t.slow_list_seconds) return std::nullopt;
  double per_item = c.list_p50 / std::max(1, c.objects);
  if (per_item < c.t.slow_list_seconds_per_item) return std::nullopt;  // count explains it
  double confidence = 0.6 + 0.1 * std::min(3.0, std::log2(c.list_p50 / c.t.slow_list_seconds)) +
                      (c.list_share >= 0.5 ? 0.05 : 0);
  Cause cause = make(cause::kRuntimeSlow, "warning", confidence);
  cause.reason = "list calls take " + human_seconds(c.list_p50) + " per relist for only " +
                 std::to_string(c.objects) + " sandboxes and containers (" + human_seconds(per_item) +
                 " each)";
  cause.action = "look for slow storage or lock contention in the runtime";
  cause.summary = "The runtime is slow to list: " + cause.reason + ".";
  cause.evidence.push_back({"relist_list_seconds_p50", c.list_p50, c.t.slow_list_seconds});
  cause.evidence.push_back({"list_seconds_per_object", per_item, c.t.slow_list_seconds_per_item});
  cause.evidence.push_back({"list_share_of_relist", c.list_share, 0.5});
  for (const auto& [name, st] : c.s.operations)
    if (is_list_op(name) && st.count > 0)
      cause.evidence.push_back({"p99_seconds{" + name + "}", st.p99_seconds, c.t.slow_list_seconds});
  std::string svc = service_name(c.s);
  cause.remedy = "Confirm: `time " + crictl(c.s) + " ps -a` and `time " + crictl(c.s) +
                 " pods` (a healthy runtime lists a thousand containers in well under a second); "
                 "`iostat -x 1` on the disk holding /var/lib/" + svc +
                 "; the runtime's logs for slow operations. Usually fixed by: moving the runtime's state to a faster, "
                 "less contended disk, upgrading the runtime (list paths have had lock-contention fixes), and "
                 "relieving node pressure if the node_pressure cause also shows.";
  return cause;
}

std::optional<Cause> rule_message_too_large(const Context& c) {
  const Snapshot& s = c.s;
  int trailing = trailing_errors(s, "RESOURCE_EXHAUSTED");
  int in_window = window_errors(c, "RESOURCE_EXHAUSTED");
  uint64_t op_err = op_errors(s, "RESOURCE_EXHAUSTED", is_list_op);
  double bytes = 0;
  std::string bytes_op;
  for (const auto& [name, st] : s.operations)
    if (is_list_op(name) && st.last_list_bytes && static_cast<double>(*st.last_list_bytes) > bytes) {
      bytes = static_cast<double>(*st.last_list_bytes);
      bytes_op = name;
    }
  double fraction = bytes / c.t.message_limit_bytes;
  const std::string limit = human_bytes(c.t.message_limit_bytes);
  // Exited containers piling up, or a few containers with huge labels/annotations?
  bool mostly_exited = c.last_ok && c.last_ok->containers > 0 &&
                      c.last_ok->exited_containers >= 0.3 * c.last_ok->containers;

  Cause cause;
  if (trailing > 0 || in_window > 0) {
    cause = make(cause::kMessageTooLarge, "critical", trailing > 0 ? 0.95 : 0.8);
    cause.reason = "the runtime's list answer is over the " + limit +
                   " gRPC message limit (RESOURCE_EXHAUSTED in " + relists(std::max(trailing, in_window)) + ")";
    cause.action = mostly_exited ? "remove exited containers so the list fits again"
                                 : "find the containers with oversized labels or annotations";
    cause.summary = "Relists fail because " + cause.reason + ".";
  } else if (fraction >= c.t.message_warn_fraction) {
    double confidence = 0.6 + 0.3 * clamp01((fraction - c.t.message_warn_fraction) /
                                            (1 - c.t.message_warn_fraction));
    cause = make(cause::kMessageTooLarge, "warning", confidence);
    cause.reason = "the last " + cri_method(bytes_op) + " answer was " + human_bytes(bytes) + ", " +
                   fmt("%.0f", fraction * 100) + "% of the " + limit +
                   " gRPC limit past which every relist fails";
    cause.action = mostly_exited ? "remove exited containers before it crosses the limit"
                                 : "find the containers with oversized labels or annotations before it crosses the limit";
    cause.summary = "The node is approaching the list size cliff: " + cause.reason + ".";
  } else {
    return std::nullopt;
  }
  cause.evidence.push_back({"relist_errors_in_window{RESOURCE_EXHAUSTED}", static_cast<double>(in_window), 0});
  if (op_err > 0) cause.evidence.push_back({"list_errors_total{RESOURCE_EXHAUSTED}", static_cast<double>(op_err), 0});
  if (!bytes_op.empty())
    cause.evidence.push_back({"list_response_bytes{" + bytes_op + "}", bytes,
                              c.t.message_limit_bytes * c.t.message_warn_fraction});
  if (c.last_ok) {
    cause.evidence.push_back({"containers", static_cast<double>(c.last_ok->containers), {}});
    cause.evidence.push_back({"exited_containers", static_cast<double>(c.last_ok->exited_containers), {}});
  }
  cause.remedy = "Confirm: `" + crictl(s) + " ps -a | wc -l` and `" + crictl(s) +
                 " ps -a -o json | wc -c` (the size of the list answer); `" + crictl(s) +
                 " inspect <id>` on a few containers shows oversized labels or annotations. Usually fixed by: "
                 "removing exited containers (`crictl rm $(crictl ps -a -q --state exited)`), fixing the "
                 "crash-looping pods that pile them up, lowering the kubelet's --maximum-dead-containers, and "
                 "trimming huge annotations. The kubelet's 16 MiB limit cannot be raised by configuration.";
  return cause;
}

std::optional<Cause> rule_too_many_containers(const Context& c) {
  if (!c.last_ok || c.objects < c.t.many_objects) return std::nullopt;
  const RelistRecord& r = *c.last_ok;
  double exited = r.containers > 0 ? static_cast<double>(r.exited_containers) / r.containers : 0;
  double confidence = 0.55 + (exited >= c.t.exited_share ? 0.15 : 0) +
                      (c.list_p50 >= c.t.slow_list_seconds ? 0.15 : 0) +
                      (c.objects >= 2 * c.t.many_objects ? 0.1 : 0);
  Cause cause = make(cause::kTooManyContainers, "warning", confidence);
  cause.reason = "the runtime holds " + std::to_string(c.objects) + " sandboxes and containers (" +
                 std::to_string(r.exited_containers) + " exited) and every relist lists them all (" +
                 human_seconds(c.list_p50) + ")";
  cause.action = "remove exited containers and fix whatever piles them up";
  cause.summary = "Relist cost is dominated by object count: " + cause.reason + ".";
  cause.evidence.push_back({"sandboxes_and_containers", static_cast<double>(c.objects),
                            static_cast<double>(c.t.many_objects)});
  cause.evidence.push_back({"exited_share", exited, c.t.exited_share});
  cause.evidence.push_back({"relist_list_seconds_p50", c.list_p50, c.t.slow_list_seconds});
  cause.remedy = "Confirm: `" + crictl(c.s) + " ps -a | wc -l`, `" + crictl(c.s) +
                 " ps -a --state exited | wc -l` and `" + crictl(c.s) +
                 " pods | wc -l`; `crictl ps -a --state exited` shows which pods leave them behind. Usually "
                 "fixed by: fixing the crash-looping workloads, removing exited containers (`crictl rm $(crictl "
                 "ps -a -q --state exited)`), tightening the kubelet's container GC (--maximum-dead-containers, "
                 "--maximum-dead-containers-per-container) and keeping maxPods realistic for the node.";
  return cause;
}

std::optional<Cause> rule_event_storm(const Context& c) {
  if (!c.enough()) return std::nullopt;
  std::vector<double> pods, events;
  int discarded = 0;
  for (const auto* r : c.window_ok) {
    pods.push_back(r->pods_with_events);
    events.push_back(r->total_events());
    discarded += r->events_discarded;
  }
  double pods_mean = mean(pods);
  bool storm = pods_mean >= c.t.storm_pods_per_relist;
  if (!storm && discarded == 0) return std::nullopt;
  double confidence = (storm ? 0.6 : 0.5) + (c.status_share >= 0.5 ? 0.15 : 0) +
                      (discarded > 0 ? 0.15 : 0) +
                      (pods_mean >= 2 * c.t.storm_pods_per_relist ? 0.1 : 0);
  Cause cause = make(cause::kEventStorm, "warning", confidence);
  cause.reason = fmt("%.0f", pods_mean) + " pods change per relist (" + fmt("%.0f", mean(events)) +
                 " events), and inspecting them one by one takes " + fmt("%.0f", c.status_share * 100) +
                 "% of each relist";
  if (discarded > 0) cause.reason += "; " + std::to_string(discarded) + " events were discarded";
  cause.action = "find and stop the crash-looping or rolling workload";
  cause.summary = "An event storm: " + cause.reason + ".";
  cause.evidence.push_back({"pods_with_events_per_relist", pods_mean, c.t.storm_pods_per_relist});
  cause.evidence.push_back({"events_per_relist", mean(events), {}});
  cause.evidence.push_back({"status_share_of_relist", c.status_share, 0.5});
  cause.evidence.push_back({"events_discarded_in_window", static_cast<double>(discarded), 0});
  cause.remedy = "Confirm: the top pods below, `kubectl get pods -A --field-selector spec.nodeName=" + c.s.node +
                 " | grep -Ev 'Running|Completed'`, `" + crictl(c.s) +
                 " ps -a --state exited | head -20` (crash loops), `kubectl get events -A --sort-by=.lastTimestamp "
                 "| tail`. Usually fixed by: fixing or scaling down the crash-looping workload (`kubectl rollout "
                 "undo`), slowing a mass rollout (maxSurge/maxUnavailable), spreading the pods over more nodes. A "
                 "bigger --event-channel-capacity only hides discards; it does not make relists faster.";
  return cause;
}

std::optional<Cause> rule_pod_status_slow(const Context& c) {
  std::string worst;
  double p99 = 0, p50 = 0;
  for (const auto& [name, st] : c.s.operations)
    if (is_status_op(name) && st.count > 0 && st.p99_seconds > p99) {
      worst = name;
      p99 = st.p99_seconds;
      p50 = st.p50_seconds;
    }
  if (worst.empty() || p99 < c.t.slow_status_seconds) return std::nullopt;
  double confidence = 0.6 + (c.status_share >= 0.5 ? 0.15 : 0) +
                      (p50 >= c.t.slow_status_seconds ? 0.1 : 0) +
                      (p99 >= 4 * c.t.slow_status_seconds ? 0.05 : 0);
  Cause cause = make(cause::kPodStatusSlow, "warning", confidence);
  cause.reason = cri_method(worst) + " takes " + human_seconds(p99) + " (p99, median " + human_seconds(p50) +
                 "), so every changed pod costs seconds to inspect";
  cause.action = "find which pods' sandboxes or containers are slow to inspect";
  cause.summary = "Pod status calls are slow: " + cause.reason + ".";
  for (const auto& [name, st] : c.s.operations)
    if (is_status_op(name) && st.count > 0)
      cause.evidence.push_back({"p99_seconds{" + name + "}", st.p99_seconds, c.t.slow_status_seconds});
  cause.evidence.push_back({"p50_seconds{" + worst + "}", p50, c.t.slow_status_seconds});
  cause.evidence.push_back({"status_share_of_relist", c.status_share, 0.5});
  std::string svc = service_name(c.s);
  cause.remedy = "Confirm: `time " + crictl(c.s) + " inspectp <pod-id>` and `time " + crictl(c.s) +
                 " inspect <container-id>` on the top pods below; `journalctl -u " + svc +
                 " | grep -iE 'cni|teardown|StopPodSandbox'` for slow network teardown. Usually fixed by: "
                 "fixing the CNI plugin or IPAM that blocks sandbox status (stale netns, unreachable IPAM "
                 "store), moving container state to a faster disk, upgrading the runtime.";
  return cause;
}

std::optional<Cause> rule_reinspect_backlog(const Context& c) {
  if (c.s.pods_to_reinspect == 0) return std::nullopt;
  int run = 0, first = 0, last = 0, failures = 0;
  for (auto it = c.s.timeline.rbegin(); it != c.s.timeline.rend(); ++it) {
    if (it->error_code) continue;  // a failed relist reinspects nothing: neither breaks nor counts
    if (it->pods_to_reinspect == 0) break;
    if (run == 0) {
      last = it->pods_to_reinspect;
      failures = it->inspection_failures;
    }
    first = it->pods_to_reinspect;
    ++run;
  }
  if (run < c.t.reinspect_relists) return std::nullopt;
  double confidence = 0.6 + (last > first ? 0.1 : 0) + (run >= 10 ? 0.1 : 0) + (failures > 0 ? 0.05 : 0);
  Cause cause = make(cause::kReinspectBacklog, "warning", confidence);
  cause.reason = std::to_string(c.s.pods_to_reinspect) +
                 (c.s.pods_to_reinspect == 1 ? " pod has" : " pods have") + " failed inspection for " + relists(run) +
                 " in a row and " + (c.s.pods_to_reinspect == 1 ? "is" : "are") + " retried every relist";
  cause.action = "find the pods whose status calls fail";
  cause.summary = "A reinspection backlog: " + cause.reason + ".";
  cause.evidence.push_back({"pods_to_reinspect", static_cast<double>(c.s.pods_to_reinspect), 0});
  cause.evidence.push_back({"relists_with_backlog_in_a_row", static_cast<double>(run),
                            static_cast<double>(c.t.reinspect_relists)});
  cause.evidence.push_back({"inspection_failures_last_relist", static_cast<double>(failures), {}});
  for (const auto& [name, st] : c.s.operations)
    if (is_status_op(name))
      for (const auto& [code, n] : st.errors_by_code)
        cause.evidence.push_back({"errors_total{" + name + "," + code + "}", static_cast<double>(n), {}});
  cause.remedy = "Confirm: `" + crictl(c.s) + " pods` then `" + crictl(c.s) + " inspectp <id>` and `" + crictl(c.s) +
                 " inspect <id>` for each pod's sandbox and containers: the one that errors is the culprit "
                 "(often a container whose shim died or a sandbox with a missing netns). Usually fixed by: "
                 "deleting that pod (`kubectl delete pod --grace-period=0 --force` once you know its workload "
                 "tolerates it) or removing the broken container with crictl; restarting the runtime if its state "
                 "for them is corrupt.";
  return cause;
}

std::optional<Cause> rule_node_pressure(const Context& c, bool* rpc_slow_out) {
  if (!c.s.pressure) return std::nullopt;
  const NodePressure& p = *c.s.pressure;
  const DiagnoserThresholds& t = c.t;
  struct Hit {
    std::string signal;
    double value, threshold;
  };
  std::vector<Hit> hits;
  auto check = [&](const char* signal, const std::optional<double>& v, double threshold) {
    if (v && *v >= threshold) hits.push_back({signal, *v, threshold});
  };
  check("cpu_some_avg10", p.cpu_some_avg10, t.cpu_psi);
  check("io_some_avg10", p.io_some_avg10, t.io_psi);
  check("memory_some_avg10", p.memory_some_avg10, t.memory_psi);
  if (p.load1 && p.cpus && *p.cpus > 0) check("load1_per_cpu", *p.load1 / *p.cpus, t.load_per_cpu);
  if (p.pids && p.pid_max && *p.pid_max > 0)
    check("pids_over_pid_max", static_cast<double>(*p.pids) / *p.pid_max, t.pid_usage);
  if (p.pids && p.threads_max && *p.threads_max > 0)
    check("threads_over_threads_max", static_cast<double>(*p.pids) / *p.threads_max, t.pid_usage);
  if (hits.empty()) return std::nullopt;

  // Does it coincide with slow RPCs? Per-call slowness is strong evidence;
  // slow relists alone (which many fast calls also make) are weak.
  double worst_p99 = 0;
  std::string worst_op;
  for (const auto& [name, st] : c.s.operations)
    if ((is_list_op(name) || is_status_op(name)) && st.count > 0 && st.p99_seconds > worst_p99) {
      worst_p99 = st.p99_seconds;
      worst_op = name;
    }
  bool hung = !c.hung_op.empty() && c.hung_seconds > t.hang_seconds;
  bool rpc_slow = worst_p99 >= std::min(t.slow_list_seconds, t.slow_status_seconds) || hung;
  bool relist_slow = c.relist_p50 >= t.slow_list_seconds;
  bool severe = false;
  for (const auto& h : hits)
    severe = severe || (h.signal.find("pid") != std::string::npos || h.signal.find("threads") != std::string::npos
                            ? h.value >= 0.97 || h.value >= t.pid_usage + 0.05
                            : h.value >= 1.5 * h.threshold);
  double confidence = 0.35 + (rpc_slow ? 0.4 : relist_slow ? 0.25 : 0) + (severe ? 0.1 : 0);
  *rpc_slow_out = rpc_slow;
  Cause cause = make(cause::kNodePressure, confidence >= 0.5 ? "warning" : "info", confidence);
  std::string what;
  for (size_t i = 0; i < hits.size(); ++i) {
    const auto& h = hits[i];
    if (i) what += i + 1 == hits.size() ? " and " : ", ";
    if (h.signal == "cpu_some_avg10") what += "CPU pressure " + fmt("%.0f", h.value) + "%";
    else if (h.signal == "io_some_avg10") what += "IO pressure " + fmt("%.0f", h.value) + "%";
    else if (h.signal == "memory_some_avg10") what += "memory pressure " + fmt("%.0f", h.value) + "%";
    else if (h.signal == "load1_per_cpu") what += "a load of " + fmt("%.1f", h.value) + " per CPU";
    else what += fmt("%.0f", h.value * 100) + "% of the PID space in use";
  }
  cause.reason = "the node is under " + what +
                 (hung ? " while " + cri_method(c.hung_op) + " has been in flight for " + human_seconds(c.hung_seconds)
                  : rpc_slow ? " while " + cri_method(worst_op) + " takes " + human_seconds(worst_p99) + " (p99)"
                  : relist_slow ? " while relists take " + human_seconds(c.relist_p50)
                               : " (runtime calls are not slow yet)");
  cause.action = "find what saturates the node";
  cause.summary = "Node pressure: " + cause.reason + ".";
  for (const auto& h : hits) cause.evidence.push_back({h.signal, h.value, h.threshold});
  if (!worst_op.empty())
    cause.evidence.push_back({"p99_seconds{" + worst_op + "}", worst_p99,
                              std::min(t.slow_list_seconds, t.slow_status_seconds)});
  cause.evidence.push_back({"relist_duration_p50_seconds", c.relist_p50, t.slow_list_seconds});
  cause.remedy = "Confirm: `cat /proc/pressure/{cpu,io,memory}`, `iostat -x 1` (await, %util), `top -o %CPU`, "
                 "`ps -eLf | wc -l` against `cat /proc/sys/kernel/pid_max`; `kubectl top pods -A "
                 "--sort-by=cpu` for the noisy workload. Usually fixed by: throttling or moving the pod that "
                 "saturates the disk or CPU, setting requests/limits (and pids limits: the kubelet's "
                 "--pod-max-pids), reserving resources for system daemons (--system-reserved, "
                 "--kube-reserved); drain the node by hand if it stays saturated, never by an automatic reboot.";
  return cause;
}

// ------------------------------------------------------------- forecast

std::optional<double> forecast(const Context& c) {
  const Snapshot& s = c.s;
  double threshold = to_seconds(s.relist_threshold);
  if (!s.healthy) return 0.0;
  // No good relist is coming: the last one failed, or one is stuck. The
  // age of the last good relist grows one second a second toward the threshold.
  bool stuck = !c.hung_op.empty() && c.hung_seconds > c.t.hang_seconds;
  if (s.relist_in_progress_since &&
      to_seconds(s.now - *s.relist_in_progress_since) > std::max(c.t.hang_seconds, 2 * to_seconds(s.relist_period)))
    stuck = true;
  if (!s.timeline.empty() && s.timeline.back().error_code) stuck = true;
  if (stuck && s.last_seen) return std::max(0.0, threshold - to_seconds(s.now - *s.last_seen));

  // Relist duration trending up: least squares over the window.
  if (c.window_ok.size() < 6) return std::nullopt;
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (const auto* r : c.window_ok) {
    double x = to_seconds(r->start - s.now), y = to_seconds(r->duration);
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
  }
  double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
  if (vx <= 0 || vy <= 0) return std::nullopt;
  double slope = cxy / vx;
  double r2 = cxy * cxy / (vx * vy);
  if (slope <= 0 || r2 < 0.5) return std::nullopt;
  // A steady climb, not one step up (a phase change looks linear to a fit):
  // each third of the window averages clearly more than the one before.
  size_t k = c.window_ok.size() / 3;
  auto third_mean = [&](size_t from, size_t to) {
    double sum = 0;
    for (size_t i = from; i < to; ++i) sum += to_seconds(c.window_ok[i]->duration);
    return sum / static_cast<double>(to - from);
  };
  double m1 = third_mean(0, k), m2 = third_mean(k, 2 * k), m3 = third_mean(2 * k, c.window_ok.size());
  if (!(m2 > 1.1 * m1 && m3 > 1.1 * m2)) return std::nullopt;
  // ... and still climbing within the newest third (a step is flat there).
  size_t mid = 2 * k + (c.window_ok.size() - 2 * k) / 2;
  if (!(third_mean(mid, c.window_ok.size()) > 1.05 * third_mean(2 * k, mid))) return std::nullopt;
  double now_fit = sy / n - slope * sx / n;  // the fitted duration at x = 0 (now)
  double t = (threshold - now_fit) / slope;
  if (t <= 0) return 0.0;
  if (t > 3600) return std::nullopt;  // too far out to be a forecast
  return std::round(t);
}

}  // namespace

Report diagnose(const Snapshot& s, const DiagnoserThresholds& t) {
  Context c = make_context(s, t);
  Report report;
  report.node = s.node;
  report.generated_at = s.now;
  report.healthy = s.healthy;
  report.health_message = s.health_message;

  // Causes.
  bool pressure_explains_rpcs = false;
  std::vector<std::optional<Cause>> found = {
      rule_runtime_unavailable(c), rule_runtime_hung(c),     rule_runtime_slow(c),
      rule_message_too_large(c),   rule_too_many_containers(c), rule_event_storm(c),
      rule_pod_status_slow(c),     rule_reinspect_backlog(c), rule_node_pressure(c, &pressure_explains_rpcs)};
  for (auto& f : found) {
    if (!f) continue;
    // A starved node makes every call slow: then pressure is the likelier
    // root cause, and the slow-call causes are its symptoms.
    if (pressure_explains_rpcs && (f->id == cause::kRuntimeSlow || f->id == cause::kPodStatusSlow)) {
      f->confidence = round2(f->confidence * 0.75);
      f->summary += " Node pressure may explain it.";
    }
    if (f->confidence >= t.min_confidence) report.causes.push_back(std::move(*f));
  }
  auto rank = [](const std::string& id) {
    for (size_t i = 0; i < std::size(cause::kAll); ++i)
      if (id == cause::kAll[i]) return i;
    return std::size(cause::kAll);
  };
  std::stable_sort(report.causes.begin(), report.causes.end(), [&](const Cause& a, const Cause& b) {
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    return rank(a.id) < rank(b.id);
  });
  report.seconds_to_unhealthy = forecast(c);

  // Status and summary.
  report.status = !s.healthy ? "unhealthy"
                  : (!report.causes.empty() || report.seconds_to_unhealthy) ? "at_risk"
                                                                              : "healthy";

  // Relist figures over the whole timeline.
  std::vector<double> durations, events;
  const RelistRecord* first = first_ok(s);
  for (const auto& r : s.timeline) {
    // The warm-up relist inspects every pod: not what a relist costs.
    if (&r == first && s.timeline.size() > 1) continue;
    if (!r.error_code) durations.push_back(to_seconds(r.duration));
    events.push_back(r.total_events());
  }
  report.relist.period_seconds = to_seconds(s.relist_period);
  report.relist.threshold_seconds = to_seconds(s.relist_threshold);
  if (s.last_seen) report.relist.seconds_since_last_seen = to_seconds(s.now - *s.last_seen);
  if (s.relist_in_progress_since)
    report.relist.in_progress_seconds = to_seconds(s.now - *s.relist_in_progress_since);
  report.relist.duration_p50_seconds = quantile(durations, 0.5);
  report.relist.duration_p99_seconds = quantile(durations, 0.99);
  report.relist.mode = s.evented_mode ? "evented" : "generic";
  if (!s.evented_fallback_reason.empty())
    report.relist.evented_fallback_reason = s.evented_fallback_reason;

  if (report.status == "healthy") {
    report.summary = "PLEG is healthy: relists take " + human_seconds(report.relist.duration_p50_seconds) +
                     " (p99 " + human_seconds(report.relist.duration_p99_seconds) + ") against a " +
                     human_seconds(report.relist.threshold_seconds) + " threshold; nothing to do.";
  } else {
    std::string state = !s.healthy ? "not healthy" : "at risk";
    if (s.healthy && report.seconds_to_unhealthy)
      state += " (unhealthy in about " + human_seconds(*report.seconds_to_unhealthy) + ")";
    if (!report.causes.empty()) {
      const Cause& top = report.causes.front();
      report.summary = "PLEG is " + state + " because " + top.reason + ": " + top.action + ".";
    } else if (s.healthy) {
      report.summary = "PLEG is " + state + ": relist duration is growing toward the " +
                       human_seconds(report.relist.threshold_seconds) +
                       " threshold; watch the timeline and the per-operation latencies.";
    } else {
      report.summary = "PLEG is " + state + " (" + s.health_message +
                       ") and no measured signal explains it yet: check `" + crictl(s) +
                       " info` and the runtime's logs.";
    }
  }

  // Runtime.
  report.runtime.endpoint = s.endpoint;
  report.runtime.name = s.runtime_name;
  report.runtime.version = s.runtime_version;
  for (const auto& [name, st] : s.operations) {
    OperationReport o;
    o.count = st.count;
    o.errors = st.errors;
    o.p50_seconds = st.p50_seconds;
    o.p99_seconds = st.p99_seconds;
    o.max_seconds = st.max_seconds;
    o.in_flight = st.in_flight;
    o.oldest_in_flight_seconds = st.oldest_in_flight_seconds;
    report.runtime.operations[name] = o;
  }

  // Pods.
  if (c.last_ok) {
    report.pods.sandboxes = c.last_ok->sandboxes;
    report.pods.containers = c.last_ok->containers;
    report.pods.running_containers = c.last_ok->running_containers;
    report.pods.exited_containers = c.last_ok->exited_containers;
  }
  report.pods.pods_to_reinspect = static_cast<int>(s.pods_to_reinspect);

  // Events.
  report.events.per_relist_p99 = quantile(events, 0.99);
  for (size_t i = 0; i < std::size(kAllEventTypes); ++i) {
    uint64_t n = 0;
    for (const auto& r : s.timeline) n += static_cast<uint64_t>(r.events_by_type[i]);
    report.events.by_type[event_type_name(kAllEventTypes[i])] = n;
  }
  report.events.discarded_total = s.events_discarded_total;
  std::map<std::string, TopPod> pods;
  const RelistRecord* warmup = first_ok(s);
  for (const auto& r : s.timeline)
    for (const auto& p : r.top_pods) {
      if (&r == warmup) break;
      TopPod& top = pods[p.uid];
      top.uid = p.uid;
      top.name = p.name;
      top.namespace_ = p.namespace_;
      top.events += p.events;
    }
  for (auto& [uid, p] : pods) report.events.top_pods.push_back(p);
  std::stable_sort(report.events.top_pods.begin(), report.events.top_pods.end(),
                   [](const TopPod& a, const TopPod& b) { return a.events > b.events; });
  if (report.events.top_pods.size() > 10) report.events.top_pods.resize(10);

  // Node pressure.
  if (s.pressure) {
    report.node_pressure.cpu_some_avg10 = s.pressure->cpu_some_avg10;
    report.node_pressure.io_some_avg10 = s.pressure->io_some_avg10;
    report.node_pressure.memory_some_avg10 = s.pressure->memory_some_avg10;
    report.node_pressure.load1 = s.pressure->load1;
    report.node_pressure.pids = s.pressure->pids;
    report.node_pressure.pid_max = s.pressure->pid_max;
  }

  // Timeline.
  for (const auto& r : s.timeline) {
    TimelineEntry e;
    e.start = r.start;
    e.duration_seconds = to_seconds(r.duration);
    e.list_seconds = to_seconds(r.list_time);
    e.status_seconds = to_seconds(r.status_time);
    e.status_calls = r.status_calls;
    e.pods = r.pods;
    e.containers = r.containers;
    e.events = r.total_events();
    e.error = r.error_code;
    report.timeline.push_back(std::move(e));
  }
  return report;
}

std::map<std::string, double> cause_confidences(const Report& report) {
  std::map<std::string, double> out;
  for (const char* id : cause::kAll) out[id] = 0;
  for (const auto& c : report.causes) out[c.id] = c.confidence;
  return out;
}

}  // namespace plegscope
