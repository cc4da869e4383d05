#pragma once
// Event lag in words, shared by the summary, the text and the HTML report:
// how late the PLEG saw containers change, measured from the runtime's own
// timestamps. Named in the summary only when it is the harm a user sees.
#include <optional>
#include <string>

#include "diagnoser/report.h"

namespace plegscope {

// Lag is material when its p99 is several relist periods (and at least a
// second) over enough events: a steady node sees a change within about one
// period plus the relist's own time.
inline constexpr double kMaterialLagPeriods = 3;
inline constexpr double kMaterialLagSeconds = 1;
inline constexpr int64_t kMaterialLagEvents = 3;
bool lag_is_material(const Report& report);

// Evented mode: a stream delivers in milliseconds, so events a second or
// more late (p99, over enough events) are the harm, whatever the period.
inline constexpr double kMaterialEventedLagSeconds = 1;
bool evented_lag_is_material(const Report& report);

// "containers that die are seen 14s late (p99 over 40 events, p50 3s)", or
// for evented delivery "runtime events arrive 4s late (p99 over 12 events,
// p50 2s)", or nullopt when no lag is material. While the agent stretches
// its own period, the lag it measured is its back-off, not the node's: the
// kubelet's (its period plus a relist) is said first, the agent's labelled.
std::optional<std::string> lag_harm(const Report& report);

// "evented: delivery p50 5ms, p99 20ms over 12 events; cache update p50 ...",
// or nullopt in generic mode with no evented event in the window.
std::optional<std::string> evented_lag_text(const Report& report);

// "p50 0.6s, p99 1.1s over 40 events (0 invalid)", or "no event measured ..."
std::string lag_figures(const Report& report);

// "default/web-1 (app) ContainerDied 14s"
std::string lag_pod(const LagPod& pod);

}  // namespace plegscope
