#pragma once
// The PLEG block's options, with the kubelet's defaults.
#include <cstddef>

#include "common/clock.h"
#include "common/flag_declaration.h"
#include "pleg/kubelet_model.h"

namespace plegscope {

enum class EventedMode { Auto, On, Off };

// The kubelet's behaviour of release major.minor; any release before 1.35
// behaves as 1.35 does in every field above.
KubeletModel kubelet_model_of(int major, int minor);
// The newest released kubelet: what the agent copies when it cannot tell.
inline KubeletModel newest_kubelet_model() { return kubelet_model_of(1, kNewestKubeletMinor); }

struct PlegOptions {
  Duration relist_period = std::chrono::seconds(1);
  Duration relist_threshold = std::chrono::minutes(3);
  Duration relist_backoff_max = std::chrono::seconds(10);  // 0: never stretch the period
  size_t event_channel_capacity = 1000;
  EventedMode evented = EventedMode::Off;  // the kubelet's default on every release
  size_t event_log_size = 1000;            // events kept for /debug/events
  size_t relist_history = 600;             // relists kept for the timeline
};
// --relist-period, --relist-threshold, --relist-backoff-max,
// --event-channel-capacity, --evented-pleg (pleg_flags.cpp).
void add_flags(CLI::App& app, PlegOptions& options);

}  // namespace plegscope
