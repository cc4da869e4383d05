#include "node/node.h"

#include <spdlog/spdlog.h>

#include "common/metric_family.h"
#include "common/thread_name.h"
#include "cri/runtime_socket.h"
#include "diagnoser/runtime_family.h"
#include "node/snapshot_joins.h"

namespace plegscope {
namespace {

// CRI-O serves its pages on its CRI socket: read when the host is scanned
// (its conmons say which containers lost theirs) and the runtime's Version
// says CRI-O (before its first answer, the socket's path).
CrioPagesOptions crio_pages_options(const NodeOptions& o) {
  CrioPagesOptions c;
  if (o.host.enabled) c.socket = o.runtime.endpoint;
  c.proc_path = o.host.proc_path;
  return c;
}

// The watched runtime as its Version names it (before its first answer, as
// its socket's path does): what the CRI-O pages and the host scan's shim
// filter each ask at their own time.
RuntimeFamily watched_family(const RuntimeInfoSource& info, const std::string& endpoint) {
  return runtime_family(info.evidence().name, endpoint);
}

// The host scan counts a containerd shim as the node's only when its
// -address names the CRI socket the agent reads: on a host running two
// containerds (Docker's beside the kubelet's) the other's frozen shim is not
// this node's cause. The endpoint is compared as the host's path, which is
// what the agent sees (the DaemonSet mounts the host's /run/containerd at the
// same path; a bare-host agent shares the host's). No socket when the runtime
// is not containerd (cri-dockerd's shims name Docker's containerd; CRI-O runs
// none): every shim then counts, as before.
HostSourceOptions host_options(const NodeOptions& o, const RuntimeInfoSource& info) {
  HostSourceOptions h = o.host;
  h.runtime_socket = [&info, endpoint = o.runtime.endpoint] {
    return watched_family(info, endpoint) == RuntimeFamily::kContainerd ? endpoint : std::string();
  };
  return h;
}

}  // namespace

Node::Node(NodeOptions options, const Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      registry_(std::make_shared<prometheus::Registry>()),
      tracker_(*registry_, clock, options_.metric_detail),
      client_(options_.runtime, tracker_, clock),
      metrics_(*registry_, options_.metric_detail),
      recorder_(options_.pleg.relist_history),
      event_log_(options_.pleg.event_log_size),
      pleg_(client_, clock, cache_, metrics_,
            GenericPlegOptions{options_.pleg.event_channel_capacity,
                               RelistTiming{options_.pleg.relist_period, options_.pleg.relist_threshold},
                               options_.pleg.relist_backoff_max},
            [this](const RelistRecord& r) { on_relist(r); }),
      evented_(client_, clock, cache_, pleg_, metrics_, *registry_,
               EventedPlegOptions{5, options_.pleg.evented == EventedMode::Auto,
                                  RelistTiming{options_.pleg.relist_period, options_.pleg.relist_threshold},
                                  &pleg_.directory(), newest_kubelet_model().evented_hint,
                                  [this](const std::string& uid) { pleg_.request_relist(uid); }}),
      runtime_info_(client_, options_.runtime.endpoint),
      pressure_(options_.host.proc_path),
      host_(host_options(options_, runtime_info_), clock,
            CallsInFlight{[this] { return tracker_.oldest_in_flight_seconds(); }, [this] { return pods_in_flight(); }},
            options_.hang_threshold),
      journal_(options_.journal, clock),
      kubelet_(options_.kubelet, api_server_config(options_.api_server), options_.node_name, clock),
      runtime_metrics_(options_.runtime_metrics, clock),
      runtime_status_(client_, clock, RuntimeStatusOptions{true, kRuntimeStatusPeriod, kRuntimeDownThreshold,
                                                           options_.runtime.request_timeout}),
      crio_pages_(
          crio_pages_options(options_), [this] { return containers_without_conmon(); },
          [this] { return watched_family(runtime_info_, options_.runtime.endpoint) == RuntimeFamily::kCrio; }),
      sources_{&runtime_info_, &pressure_, &journal_, &kubelet_,
               &runtime_metrics_, &host_, &runtime_status_, &crio_pages_} {
  // The model before the kubelet is read: --kubelet-version's release, else
  // the newest released kubelet's. Each scrape then brings the kubelet's own.
  const KubeletPlegModel initial = kubelet_.evidence().view.model;
  pleg_.set_model(initial.behaviour);
  evented_.set_hint(initial.behaviour.evented_hint);
  if (kubelet_.scraping())
    kubelet_.on_view([this](const KubeletView& view) {
      follow_kubelet_model(view);
      if (options_.runtime.list_streaming == ListStreaming::kFollowKubelet) follow_kubelet_list_streaming(view);
    });
}

// The kubelet streams its lists only with the CRIListStreaming gate on; its
// unary path is the one that meets the 16 MiB limit. The agent lists the
// same way, so a node the kubelet cannot list is one the agent cannot either.
void Node::follow_kubelet_list_streaming(const KubeletView& view) {
  const bool streams = view.cri_list_streaming_gate.value_or(false);
  if (client_.list_streaming() == streams) return;
  spdlog::info("the kubelet {} the CRIListStreaming gate: the agent's lists are {}",
               streams ? "runs" : "does not run", streams ? "streamed" : "unary");
  client_.set_list_streaming(streams);
}

// The PLEG copies the kubelet's release: how it inspects pods, its
// on-demand pod relists, and what evented PLEG is (a hint from 1.37).
// With --evented-pleg auto the stream also follows the kubelet's gate:
// before 1.37 the gate relists every 300 s against 10 min and takes the
// events from the runtime's stream, and the agent does the same; from 1.37
// the stream only asks for pod relists and the generic relist keeps 1 s /
// 3 min. Without the gate, no stream.
void Node::follow_kubelet_model(const KubeletView& view) {
  if (stopping_) return;
  pleg_.set_model(view.model.behaviour);
  evented_.set_hint(view.model.behaviour.evented_hint);
  if (options_.pleg.evented != EventedMode::Auto || view.model.kind == PlegModelKind::generic) return;
  if (evented_started_.exchange(true)) return;
  spdlog::info("the kubelet runs the EventedPLEG gate ({}): following it with evented PLEG{}",
               view.version ? view.version->git_version : "version unknown",
               view.model.behaviour.evented_hint ? " as a hint" : "");
  evented_.start();
}

Node::~Node() { stop(); }

void Node::start(SourceLanes lanes) {
  stopping_ = false;
  consumer_ = std::thread([this] {
    name_this_thread("pleg-events");
    consume_events();
  });
  pleg_.start();
  // Auto beside a readable kubelet waits for its model (follow_kubelet_model).
  // Without one, auto copies the model the agent assumes (--kubelet-version's
  // release, else the newest released kubelet's) with the gate at its
  // default, off on every release: no stream, the generic relist every
  // second, never the 300 s one where the kubelet relists every second.
  if (options_.pleg.evented == EventedMode::On) {
    evented_started_ = true;
    evented_.start();
  }
  // The waiting lane serves a source's descriptor task between and during
  // its jobs (the journal's fd beside the scrapes' sockets): declared before
  // any source asks the lane for it.
  for (Source* source : sources_)
    if (FdTask* task = source->waiting_task()) lanes.waiting.serve(*task);
  for (Source* source : sources_)
    if (source->enabled()) source->start(lanes);
}

void Node::stop() {
  if (stopping_.exchange(true)) return;
  client_.shutdown();
  for (Source* source : sources_) source->stop();
  evented_.stop();
  pleg_.stop();
  pleg_.watch().close();
  if (consumer_.joinable()) consumer_.join();
}

void Node::relist() { pleg_.relist(); }

std::vector<std::pair<std::string, size_t>> Node::structure_sizes() const { return pleg_.structure_sizes(); }

HealthStatus Node::health() const {
  HealthStatus generic = pleg_.healthy();
  if (!generic.healthy || !evented_.drives_pleg()) return generic;
  return evented_.healthy();
}

Snapshot Node::snapshot() const {
  Snapshot s;
  s.node = options_.node_name;
  const ClockReading reading = read_clocks(clock_);
  s.now = reading.wall;
  s.monotonic = reading.mono;

  // The PLEG block.
  HealthStatus health = this->health();
  s.healthy = health.healthy;
  s.health_message = health.message;
  RelistTiming timing = pleg_.timing();
  s.relist_period = timing.period;
  s.relist_threshold = timing.threshold;
  if (auto stretch = pleg_.stretch()) {
    s.stretched_period = stretch->period;
    s.stretch_reason = stretch->reason;
  }
  if (auto seen = pleg_.last_relist_monotonic()) s.last_seen = reading.place(*seen);
  s.in_progress = pleg_.progress();
  if (s.in_progress) {
    s.in_progress->start = reading.place(s.in_progress->monotonic_start);
    s.relist_in_progress_since = s.in_progress->start;
  }
  s.evented_mode = evented_.drives_pleg();
  s.evented_fallback_reason = evented_.fallback_reason();
  s.endpoint = options_.runtime.endpoint;
  switch (runtime_socket_state(options_.runtime.endpoint)) {
    case SocketState::kNotAUnixPath: break;  // nothing to stat: unknown
    case SocketState::kSocket: s.socket_present = true; break;
    case SocketState::kMissing:
    case SocketState::kNotASocket: s.socket_present = false; break;
  }
  s.operations = tracker_.all_stats();
  s.unreachable = tracker_.reachability();
  s.timeline = recorder_.snapshot();
  for (RelistRecord& r : s.timeline) r.start = reading.place(r.monotonic_start);
  s.pods_to_reinspect = pleg_.pods_to_reinspect();
  // The counter itself, not the ring buffer's sum: discards older than the
  // timeline still count.
  s.events_discarded_total = static_cast<uint64_t>(metrics_.discard_events.Value());
  s.evented_lag = evented_.lag_over(kEventedLagWindow);

  // One line per source.
  const RuntimeInfo info = runtime_info_.evidence();
  s.runtime_name = info.name;
  s.runtime_version = info.version;
  s.pressure = pressure_.evidence();
  s.journal = journal_evidence(journal_.evidence(), options_.journal.units, s.timeline, s.now);
  s.kubelet = kubelet_.evidence();
  s.runtime_metrics = runtime_metrics_.evidence();
  s.runtime_status = runtime_status_.evidence();
  s.crio_pages = crio_pages_.evidence();
  HostObservation host = host_.evidence();

  // The pod join: the PLEG's pods behind the calls and the host's processes.
  const PodLookup find_pod = [this](const CallTarget& target) { return pleg_.find_pod(target); };
  s.pod_calls = pod_calls(s.operations, find_pod);
  if (host.scan) {
    s.host = std::move(host.scan);
    fill_conmon_sandboxes(*s.host, find_pod);
    // A blocked task's seconds in D are as of its scan: placed on the wall
    // axis through this snapshot's reading, aged on the monotonic clock.
    s.host_scanned_at = reading.place(host.scanned_at);
    s.zombie_history = std::move(host.zombie_history);
    s.pods_by_sandbox = pods_by_sandbox(*s.host, find_pod);
    s.shim_pods = shim_pods(*s.host, find_pod);
    s.zombie_parent_pods = zombie_parent_pods(*s.host, find_pod);
    join_cgroup_v2(s, find_pod, [this](const auto& uid_ids) { return pleg_.container_states(uid_ids); });
  }
  s.unmonitored_pods = unmonitored_pods(s.crio_pages, find_pod);
  return s;
}

std::vector<std::string> Node::containers_without_conmon() const {
  HostObservation host = host_.evidence();
  if (!host.scan) return {};
  const ClockReading reading = read_clocks(clock_);
  const int64_t scanned_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(reading.place(host.scanned_at).time_since_epoch()).count();
  std::vector<RunningContainer> running;
  for (const PodStatus& pod : cache_.snapshot())
    for (const auto& c : pod.containers)
      if (c.state() == cri::CONTAINER_RUNNING) running.push_back({c.id(), c.started_at()});
  return plegscope::containers_without_conmon(*host.scan, scanned_ns, running);
}

std::set<std::string> Node::pods_in_flight() const {
  std::set<std::string> uids;
  for (const auto& call : pod_calls(tracker_.all_stats(), [this](const CallTarget& t) { return pleg_.find_pod(t); }))
    if (call.in_flight && !call.pod.uid.empty()) uids.insert(call.pod.uid);
  return uids;
}

std::vector<PodStatus> Node::pods() const { return cache_.snapshot(); }

std::vector<PodLifecycleEvent> Node::events() const { return event_log_.snapshot(); }

std::optional<HttpResult> Node::runtime_goroutines() const {
  if (!crio_pages_.reads_crio()) return std::nullopt;
  return crio_pages_.goroutines();
}

// Blocks until an event comes or stop() closes the channel: no wake-ups on
// an idle node.
void Node::consume_events() {
  while (auto event = pleg_.watch().receive()) event_log_.add(std::move(*event));
}

void Node::on_relist(const RelistRecord& relist) {
  RelistRecord record = relist;
  if (auto bytes = tracker_.last_list_bytes(op::kListContainers)) record.list_bytes = *bytes;
  recorder_.add(std::move(record));
  relist_count_++;
  runtime_info_.after_relist(relist.error_code.has_value());
}

std::vector<prometheus::MetricFamily> Node::computed_families() const {
  auto healthy = gauge_family("pleg_healthy", "1 if PLEG is healthy by the kubelet's rule, else 0.");
  add_gauge(healthy, {}, health().healthy ? 1 : 0);
  auto build = gauge_family("plegscope_build_info", "plegscope version and the runtime it observes; value 1.");
  const RuntimeInfo info = runtime_info_.evidence();
  add_gauge(build, {{"version", PLEGSCOPE_VERSION}, {"runtime_name", info.name}, {"runtime_version", info.version}},
            1);
  return {healthy, build};
}

std::vector<prometheus::MetricFamily> Node::collect_metrics() const {
  auto families = registry_->Collect();
  auto append = [&families](std::vector<prometheus::MetricFamily> more) {
    families.insert(families.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  append(tracker_.Collect());
  append(pleg_.Collect());  // pleg_last_seen_age_seconds, on the monotonic clock
  append(computed_families());
  for (const Source* source : sources_)
    if (source->enabled()) append(source->Collect());
  return families;
}

}  // namespace plegscope
