#include "monitor.h"

#include <spdlog/spdlog.h>

#include "common/metric_family.h"

namespace plegscope {

Monitor::Monitor(const Config& config, const Clock& clock)
    : config_(config),
      clock_(clock),
      registry_(std::make_shared<prometheus::Registry>()),
      tracker_(*registry_, clock),
      client_(GrpcClientOptions{config.runtime_endpoint, config.runtime_request_timeout}, tracker_,
              clock),
      metrics_(*registry_),
      recorder_(config.relist_history),
      event_log_(config.event_log_size),
      pleg_(client_, clock, cache_, metrics_,
            GenericPlegOptions{config.event_channel_capacity,
                               RelistTiming{config.relist_period, config.relist_threshold},
                               config.relist_backoff_max},
            [this](const RelistRecord& r) { on_relist(r); }),
      evented_(client_, clock, cache_, pleg_, metrics_, *registry_,
               EventedPlegOptions{5, config.evented == EventedMode::Auto,
                                  RelistTiming{config.relist_period, config.relist_threshold}}) {}

Monitor::~Monitor() { stop(); }

void Monitor::start() {
  stopping_ = false;
  consumer_ = std::thread([this] { consume_events(); });
  info_thread_ = std::thread([this] { refresh_runtime_info_loop(); });
  pleg_.start();
  if (config_.evented != EventedMode::Off) evented_.start();
}

HealthStatus Monitor::healthy() const {
  HealthStatus generic = pleg_.healthy();
  if (!generic.healthy || !evented_.active()) return generic;
  return evented_.healthy();
}

void Monitor::stop() {
  if (stopping_.exchange(true)) return;
  client_.shutdown();
  evented_.stop();
  pleg_.stop();
  pleg_.watch().close();
  if (consumer_.joinable()) consumer_.join();
  {
    std::lock_guard<std::mutex> lock(info_mu_);  // no wake-up lost between its check and its wait
  }
  info_cv_.notify_all();
  if (info_thread_.joinable()) info_thread_.join();
}

// Blocks until an event comes or stop() closes the channel: no wake-ups on
// an idle node.
void Monitor::consume_events() {
  while (auto event = pleg_.watch().receive()) event_log_.add(std::move(*event));
}

void Monitor::on_relist(const RelistRecord& relist) {
  RelistRecord record = relist;
  if (auto bytes = tracker_.last_list_bytes(op::kListContainers)) record.list_bytes = *bytes;
  recorder_.add(std::move(record));
  relist_count_++;
  const bool failed = relist.error_code.has_value();
  std::lock_guard<std::mutex> lock(info_mu_);
  // After the first success and after every recovery: the runtime may have
  // been upgraded while it was away.
  if (!failed && (last_relist_failed_ || runtime_info_.name.empty())) {
    info_wanted_ = true;
    info_cv_.notify_one();
  }
  last_relist_failed_ = failed;
}

void Monitor::refresh_runtime_info_loop() {
  std::unique_lock<std::mutex> lock(info_mu_);
  while (true) {
    info_cv_.wait(lock, [this] { return info_wanted_ || stopping_; });
    if (stopping_) return;
    info_wanted_ = false;
    lock.unlock();
    auto version = client_.version();  // a failure is retried after the next good relist
    lock.lock();
    if (!version.ok()) continue;
    runtime_info_ = {version.value.runtime_name(), version.value.runtime_version(),
                     version.value.runtime_api_version()};
    spdlog::info("runtime at {}: {} {} (CRI {})", config_.runtime_endpoint, runtime_info_.name,
                 runtime_info_.version, runtime_info_.api_version);
  }
}

RuntimeInfo Monitor::runtime_info() const {
  std::lock_guard<std::mutex> lock(info_mu_);
  return runtime_info_;
}

std::vector<prometheus::MetricFamily> Monitor::Collect() const {
  auto healthy = gauge_family("pleg_healthy", "1 if PLEG is healthy by the kubelet's rule, else 0.");
  add_gauge(healthy, {}, this->healthy().healthy ? 1 : 0);
  auto build = gauge_family("plegscope_build_info",
                            "plegscope version and the runtime it observes; value 1.");
  RuntimeInfo info = runtime_info();
  add_gauge(build,
            {{"version", PLEGSCOPE_VERSION},
             {"runtime_name", info.name},
             {"runtime_version", info.version}},
            1);
  return {healthy, build};
}

std::vector<prometheus::MetricFamily> Monitor::collect_all() const {
  auto families = registry_->Collect();
  for (const prometheus::Collectable* c :
       {static_cast<const prometheus::Collectable*>(&tracker_),
        static_cast<const prometheus::Collectable*>(&pleg_),
        static_cast<const prometheus::Collectable*>(this)}) {
    auto more = c->Collect();
    families.insert(families.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
  }
  return families;
}

}  // namespace plegscope
