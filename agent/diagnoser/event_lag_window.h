#pragma once
// Event lag over the report's window: the relists' bounded lag summaries
// (RelistRecord::lag) summed as Prometheus sums histogram buckets, so the
// p50/p99 here and histogram_quantile over pleg_event_lag_seconds agree.
// Pure.
#include <vector>

#include "diagnoser/report.h"
#include "pleg/relist_record.h"

namespace plegscope {

// Completed relists only; the initial relist has no lag (nothing was
// watched before it). At most kWorstLagPods pods, one line each.
inline constexpr size_t kWorstLagPods = 10;
Report::EventLag event_lag_over(const std::vector<RelistRecord>& timeline);

// Evented mode's figures from the node's window (Snapshot::evented_lag).
Report::EventLag::Evented evented_lag_figures(const EventedLag& lag);

}  // namespace plegscope
