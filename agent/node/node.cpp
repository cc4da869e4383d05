#include "node/node.h"

#include <spdlog/spdlog.h>

#include "common/metric_family.h"
#include "common/thread_name.h"
#include "cri/runtime_socket.h"
#include "diagnoser/runtime_family.h"
#include "node/snapshot_joins.h"

namespace plegscope {

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
      api_server_(api_server_config(options_.api_server)),
      context_{clock,
               client_,
               options_.runtime,
               options_.node_name,
               options_.host.proc_path,
               options_.host.enabled,
               options_.hang_threshold,
               api_server_ ? &*api_server_ : nullptr},
      sources_(options_, context_) {
  join_sources();
  // The model before the kubelet is read: --kubelet-version's release, else
  // the newest released kubelet's. Each scrape then brings the kubelet's own.
  KubeletReader& kubelet = sources_.kubelet;
  const KubeletPlegModel initial = kubelet.evidence().view.model;
  pleg_.set_model(initial.behaviour);
  evented_.set_hint(initial.behaviour.evented_hint);
  if (kubelet.scraping())
    kubelet.on_view([this](const KubeletView& view) {
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
  sources_.start(lanes);
}

void Node::stop() {
  if (stopping_.exchange(true)) return;
  client_.shutdown();
  sources_.stop();
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
  s.agent_blind = agent_side(s.unreachable);
  s.timeline = recorder_.snapshot();
  for (RelistRecord& r : s.timeline) r.start = reading.place(r.monotonic_start);
  s.pods_to_reinspect = pleg_.pods_to_reinspect();
  // The counter itself, not the ring buffer's sum: discards older than the
  // timeline still count.
  s.events_discarded_total = static_cast<uint64_t>(metrics_.discard_events.Value());
  s.evented_lag = evented_.lag_over(kEventedLagWindow);

  place_sources(s, sources_.evidence(), options_.journal.units, reading);
  // The pod join: the PLEG's pods behind the calls and the host's processes.
  join_pods(
      s, [this](const CallTarget& target) { return find_pod(target); },
      [this](const auto& uid_ids) { return pleg_.container_states(uid_ids); });
  return s;
}

void Node::join_sources() {
  const std::string& endpoint = options_.runtime.endpoint;
  sources_.host.ask_with([this, &endpoint] {
    const auto calls = pod_calls(tracker_.all_stats(), [this](const CallTarget& t) { return find_pod(t); });
    return host_scan_asks(tracker_.oldest_in_flight_seconds(), calls,
                          watched_family(sources_.runtime_info.evidence(), endpoint), endpoint);
  });
  sources_.crio_pages.ask_with([this, &endpoint] {
    if (watched_family(sources_.runtime_info.evidence(), endpoint) != RuntimeFamily::kCrio) return CrioPagesAsks{};
    std::vector<RunningContainer> running;
    for (const PodStatus& pod : cache_.snapshot())
      for (const auto& c : pod.containers)
        if (c.state() == cri::CONTAINER_RUNNING) running.push_back({c.id(), c.started_at()});
    return crio_pages_asks(sources_.host.evidence(), running, read_clocks(clock_));
  });
}

std::vector<PodStatus> Node::pods() const { return cache_.snapshot(); }

std::vector<PodLifecycleEvent> Node::events() const { return event_log_.snapshot(); }

std::optional<HttpResult> Node::runtime_goroutines() const {
  if (!sources_.crio_pages.reads_crio()) return std::nullopt;
  return sources_.crio_pages.goroutines();
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
  sources_.runtime_info.after_relist(relist.error_code.has_value());
}

std::vector<prometheus::MetricFamily> Node::computed_families() const {
  auto healthy = gauge_family("pleg_healthy", "1 if PLEG is healthy by the kubelet's rule, else 0.");
  add_gauge(healthy, {}, health().healthy ? 1 : 0);
  auto build = gauge_family("plegscope_build_info", "plegscope version and the runtime it observes; value 1.");
  const RuntimeInfo info = sources_.runtime_info.evidence();
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
  append(sources_.collect());
  return families;
}

}  // namespace plegscope
