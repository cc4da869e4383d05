#pragma once
// The PLEG block's options, with the kubelet's defaults.
#include <cstddef>

#include "common/clock.h"

namespace plegscope {

enum class EventedMode { Auto, On, Off };

struct PlegOptions {
  Duration relist_period = std::chrono::seconds(1);
  Duration relist_threshold = std::chrono::minutes(3);
  Duration relist_backoff_max = std::chrono::seconds(10);  // 0: never stretch the period
  size_t event_channel_capacity = 1000;
  EventedMode evented = EventedMode::Off;  // the kubelet's default on every release
  size_t event_log_size = 1000;            // events kept for /debug/events
  size_t relist_history = 600;             // relists kept for the timeline
};

}  // namespace plegscope
