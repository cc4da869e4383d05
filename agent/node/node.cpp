#include "node/node.h"

#include <spdlog/spdlog.h>

#include "common/metric_family.h"
#include "common/thread_name.h"
#include "cri/runtime_socket.h"

namespace plegscope {
namespace {

// Version shares the readers' thread with the HTTP scrapes: bounded like them
// (a runtime that takes longer is asked again after the next good relist).
constexpr Duration kVersionTimeout = std::chrono::seconds(5);

JournalFollowerOptions journal_options(const NodeOptions& o) {
  JournalFollowerOptions j;
  j.journal_path = o.journal_path;
  j.units.kubelet_unit = o.journal_kubelet_unit;
  j.units.runtime_units = o.journal_runtime_units;
  return j;
}

// The follower's status as the diagnoser's plain value; the window is the
// relist timeline's (from its oldest relist), so counts and relists agree.
JournalEvidence journal_evidence(const JournalStatus& status, const NodeOptions& o,
                                 const std::vector<RelistRecord>& timeline, TimePoint now) {
  JournalEvidence j;
  j.available = status.available;
  j.path = status.path;
  j.error = status.error;
  j.kubelet_unit = o.journal_kubelet_unit;
  j.runtime_units = o.journal_runtime_units;
  j.kernel_lines_read = status.kernel_lines_read;
  j.hung_tasks = status.hung_tasks;
  j.hung_tasks_total = status.hung_tasks_total;
  if (status.hung_tasks_suppressed)
    j.hung_tasks_suppressed_since = TimePoint(std::chrono::microseconds(status.hung_tasks_suppressed_since_usec));
  j.marks.reserve(status.marks.size());
  for (const auto& m : status.marks)
    j.marks.push_back({TimePoint(std::chrono::microseconds(m.realtime_usec)), m.unit,
                       std::string(mark_kind_name(m.kind)), m.message});
  summarize_journal_window(j, timeline.empty() ? now : timeline.front().start);
  return j;
}

}  // namespace

Node::Node(NodeOptions options, const Clock& clock)
    : options_(std::move(options)),
      clock_(clock),
      registry_(std::make_shared<prometheus::Registry>()),
      tracker_(*registry_, clock),
      client_(GrpcClientOptions{options_.runtime_endpoint, options_.runtime_request_timeout}, tracker_,
              clock),
      metrics_(*registry_),
      recorder_(options_.relist_history),
      event_log_(options_.event_log_size),
      pleg_(client_, clock, cache_, metrics_,
            GenericPlegOptions{options_.event_channel_capacity,
                               RelistTiming{options_.relist_period, options_.relist_threshold},
                               options_.relist_backoff_max},
            [this](const RelistRecord& r) { on_relist(r); }),
      evented_(client_, clock, cache_, pleg_, metrics_, *registry_,
               EventedPlegOptions{5, options_.evented == EventedMode::Auto,
                                  RelistTiming{options_.relist_period, options_.relist_threshold},
                                  &pleg_.directory()}),
      pressure_(options_.proc_path),
      journal_(journal_options(options_), clock),
      kubelet_(options_, clock),
      runtime_metrics_(options_),
      runtime_status_(client_, clock, RuntimeStatusOptions{true, kRuntimeStatusPeriod, kRuntimeDownThreshold,
                                                           options_.runtime_request_timeout}),
      timers_("node-timers", clock),
      readers_("readers", clock) {
  if (options_.evented == EventedMode::Auto && kubelet_.enabled())
    kubelet_.on_view([this](const KubeletView& view) { follow_kubelet_model(view); });
  // Host evidence (issue 17).
  if (options_.host_scan) {
    host::HostScanOptions o;
    o.proc_path = options_.proc_path;
    o.sys_path = options_.sys_path;
    o.runtime_root = options_.runtime_root;
    o.clock_ticks_per_second = options_.clock_ticks_per_second;
    if (options_.kernel_stacks) {
      o.kernel_stacks_enabled = true;
      host::KernelStackReaderOpen opened = host::open_kernel_stack_reader();
      o.kernel_stacks = std::move(opened.reader);
      o.kernel_stacks_unavailable = opened.unavailable;
      if (o.kernel_stacks)
        spdlog::info("--kernel-stacks: the BPF task iterator is loaded; the kernel stacks of the runtime's tasks "
                     "in D are read once per host scan");
      else
        spdlog::warn("--kernel-stacks unavailable, falling back to wchan and the kernel's hung-task reports: {}",
                     opened.unavailable);
    }
    host_scanner_ = std::make_unique<host::HostScanner>(std::move(o));
    seed_diskstats();
  }
}

// The kubelet before 1.37 with the EventedPLEG gate relists every 300 s
// against 10 min and takes its events from the runtime's stream: the agent
// does the same. From 1.37 the events are only a hint and the generic
// relist keeps 1 s / 3 min, as it does without the gate: the agent stays
// generic.
void Node::follow_kubelet_model(const KubeletView& view) {
  if (view.model.kind != PlegModelKind::evented_legacy || stopping_) return;
  if (evented_started_.exchange(true)) return;
  spdlog::info("the kubelet runs the EventedPLEG gate ({}): following it with evented PLEG",
               view.version ? view.version->git_version : "version unknown");
  evented_.start();
}

Node::~Node() { stop(); }

void Node::start(bool timers_on_caller) {
  stopping_ = false;
  consumer_ = std::thread([this] {
    name_this_thread("pleg-events");
    consume_events();
  });
  if (host_scanner_) timers_.every(std::chrono::seconds(1), [this] { host_scan_tick(); });
  runtime_status_.start(SourceLanes{timers_, readers_});  // before the lanes start
  if (!timers_on_caller) timers_.start();
  pleg_.start();
  // Auto beside a readable kubelet waits for its model (follow_kubelet_model).
  const bool follow_kubelet = options_.evented == EventedMode::Auto && kubelet_.enabled();
  if (options_.evented != EventedMode::Off && !follow_kubelet) {
    evented_started_ = true;
    evented_.start();
  }
  readers_.every(std::chrono::seconds(1), [this] { refresh_runtime_info(); });
  kubelet_.start(readers_);
  runtime_metrics_.start(readers_);
  // The journal follower waits on the journal's fd; readers_ waits on the
  // scrapes' sockets and between its jobs: one thread waits on both. The
  // runtime's Version (at most kVersionTimeout, once after a good relist)
  // holds the journal's reads back for that long; the marks keep their
  // entries' times, so they come out the same.
  readers_.serve(journal_);
  readers_.start();
}

void Node::stop() {
  if (stopping_.exchange(true)) return;
  client_.shutdown();
  readers_.stop();
  evented_.stop();
  pleg_.stop();
  pleg_.watch().close();
  if (consumer_.joinable()) consumer_.join();
  timers_.stop();
}

void Node::relist() { pleg_.relist(); }

std::vector<std::pair<std::string, size_t>> Node::structure_sizes() const {
  return pleg_.structure_sizes();
}

HealthStatus Node::health() const {
  HealthStatus generic = pleg_.healthy();
  if (!generic.healthy || !evented_.active()) return generic;
  return evented_.healthy();
}

void Node::set_node_condition(const NodeConditionState& state) {
  std::lock_guard<std::mutex> lock(condition_mu_);
  node_condition_ = state;
}

Snapshot Node::snapshot() const {
  Snapshot s;
  s.node = options_.node_name;
  const ClockReading reading = read_clocks(clock_);
  s.now = reading.wall;
  s.monotonic = reading.mono;
  {
    std::lock_guard<std::mutex> lock(condition_mu_);
    s.node_condition = node_condition_;
  }
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
  s.evented_mode = evented_.active();
  s.evented_fallback_reason = evented_.fallback_reason();

  s.endpoint = options_.runtime_endpoint;
  switch (runtime_socket_state(options_.runtime_endpoint)) {
    case SocketState::kNotAUnixPath: break;  // nothing to stat: unknown
    case SocketState::kSocket: s.socket_present = true; break;
    case SocketState::kMissing:
    case SocketState::kNotASocket: s.socket_present = false; break;
  }
  RuntimeInfo info = runtime_info();
  s.runtime_name = info.name;
  s.runtime_version = info.version;
  s.operations = tracker_.all_stats();

  s.timeline = recorder_.snapshot();
  for (RelistRecord& r : s.timeline) r.start = reading.place(r.monotonic_start);
  s.pods_to_reinspect = pleg_.pods_to_reinspect();
  // The counter itself, not the ring buffer's sum: discards older than the
  // timeline still count.
  s.events_discarded_total = static_cast<uint64_t>(metrics_.discard_events.Value());
  s.evented_lag = evented_.lag_over(kEventedLagWindow);

  // Node evidence: one line per reader.
  s.pressure = pressure_.read();
  s.journal = journal_evidence(journal_.status(), options_, s.timeline, s.now);
  s.kubelet = kubelet_.evidence();
  s.runtime_metrics = runtime_metrics_.evidence();
  s.runtime_status = runtime_status_.evidence();

  // Per-pod calls and host evidence (issue 17): copies, no I/O.
  s.pod_calls = pod_calls(s.operations);
  {
    std::lock_guard<std::mutex> lock(host_mu_);
    s.host = host_evidence_;
    s.zombie_history = zombie_history_;
    // The scanner's seconds in D are as of its scan: placed on the wall
    // axis through this snapshot's reading, aged on the monotonic clock.
    if (host_evidence_)
      s.host_scanned_at = s.now - std::chrono::duration_cast<Duration>(clock_.monotonic() - host_scanned_);
  }
  if (s.host) {
    s.pods_by_sandbox = pods_by_sandbox(*s.host);
    s.shim_pods = shim_pods(*s.host);
    s.zombie_parent_pods = zombie_parent_pods(*s.host);
  }
  return s;
}

std::vector<PodStatus> Node::pods() const { return cache_.snapshot(); }

std::vector<PodLifecycleEvent> Node::events() const { return event_log_.snapshot(); }

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
  const bool failed = relist.error_code.has_value();
  std::lock_guard<std::mutex> lock(info_mu_);
  // After the first success and after every recovery: the runtime may have
  // been upgraded while it was away. The observer runs under the relist lock
  // and must not call the runtime: readers_ does, within a second.
  if (!failed && (last_relist_failed_ || runtime_info_.name.empty())) info_wanted_ = true;
  last_relist_failed_ = failed;
}

void Node::refresh_runtime_info() {
  {
    std::lock_guard<std::mutex> lock(info_mu_);
    if (!info_wanted_ || stopping_) return;
    info_wanted_ = false;
  }
  auto version = client_.version_within(kVersionTimeout);
  if (!version.ok()) return;  // retried after the next good relist
  std::lock_guard<std::mutex> lock(info_mu_);
  runtime_info_ = {version.value.runtime_name(), version.value.runtime_version(),
                   version.value.runtime_api_version()};
  spdlog::info("runtime at {}: {} {} (CRI {})", options_.runtime_endpoint, runtime_info_.name,
               runtime_info_.version, runtime_info_.api_version);
}

Node::RuntimeInfo Node::runtime_info() const {
  std::lock_guard<std::mutex> lock(info_mu_);
  return runtime_info_;
}

std::vector<prometheus::MetricFamily> Node::computed_families() const {
  auto healthy = gauge_family("pleg_healthy", "1 if PLEG is healthy by the kubelet's rule, else 0.");
  add_gauge(healthy, {}, health().healthy ? 1 : 0);
  auto build = gauge_family("plegscope_build_info",
                            "plegscope version and the runtime it observes; value 1.");
  RuntimeInfo info = runtime_info();
  add_gauge(build,
            {{"version", PLEGSCOPE_VERSION},
             {"runtime_name", info.name},
             {"runtime_version", info.version}},
            1);
  std::vector<prometheus::MetricFamily> out = {healthy, build};
  // Issue 18: exported only while the reader is on, so `== 0` means a
  // scrape failed, never that the reader was left off.
  if (kubelet_.enabled()) {
    auto up = gauge_family("pleg_kubelet_up", "1 when the last scrape of the kubelet's /metrics succeeded, else 0.");
    add_gauge(up, {}, kubelet_.evidence().reachable ? 1 : 0);
    out.push_back(up);
  }
  if (runtime_metrics_.enabled()) {
    auto up = gauge_family("pleg_runtime_metrics_up",
                           "1 when the last scrape of the runtime's own metrics succeeded, else 0.");
    add_gauge(up, {}, runtime_metrics_.evidence().reachable ? 1 : 0);
    out.push_back(up);
  }
  return out;
}

std::vector<prometheus::MetricFamily> Node::collect_metrics() const {
  auto families = registry_->Collect();
  auto append = [&families](std::vector<prometheus::MetricFamily> more) {
    families.insert(families.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
  };
  append(tracker_.Collect());
  append(pleg_.Collect());  // pleg_last_seen_age_seconds, on the monotonic clock
  append(computed_families());
  append(host_families());  // issue 17
  append(runtime_status_.Collect());
  return families;
}

}  // namespace plegscope
