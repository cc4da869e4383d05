#include "gather_snapshot.h"

#include <sys/stat.h>

#include "cri/grpc_runtime_client.h"

namespace plegscope {

Snapshot gather_snapshot(Monitor& monitor, const NodePressureReader* pressure) {
  Snapshot s;
  const Config& config = monitor.config();
  s.node = config.node_name;
  s.now = monitor.clock().now();
  HealthStatus health = monitor.healthy();  // generic, and evented while active
  s.healthy = health.healthy;
  s.health_message = health.message;
  RelistTiming timing = monitor.pleg().timing();
  s.relist_period = timing.period;
  s.relist_threshold = timing.threshold;
  if (auto stretch = monitor.pleg().stretch()) {
    s.stretched_period = stretch->period;
    s.stretch_reason = stretch->reason;
  }
  s.last_seen = monitor.pleg().last_relist_time();
  s.in_progress = monitor.pleg().progress();
  if (s.in_progress) s.relist_in_progress_since = s.in_progress->start;
  s.evented_mode = monitor.evented().active();
  s.evented_fallback_reason = monitor.evented().fallback_reason();

  s.endpoint = config.runtime_endpoint;
  if (auto path = unix_socket_path(config.runtime_endpoint)) {
    struct stat st {};
    s.socket_present = ::stat(path->c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
  }
  RuntimeInfo info = monitor.runtime_info();
  s.runtime_name = info.name;
  s.runtime_version = info.version;
  s.operations = monitor.tracker().all_stats();

  s.timeline = monitor.recorder().snapshot();
  s.pods_to_reinspect = monitor.pleg().pods_to_reinspect();
  // The counter itself, not the ring buffer's sum: discards older than the
  // timeline still count.
  s.events_discarded_total = monitor.events_discarded_total();

  if (pressure) s.pressure = pressure->read();
  return s;
}

}  // namespace plegscope
