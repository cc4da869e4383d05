#pragma once
// The HTML page's two SVG charts (inline, no scripts).
#include <string>

#include "diagnoser/report.h"

namespace plegscope {

// Relist duration over time, log scale, against the PLEG threshold; the
// relist in progress as one distinct bar reaching to now.
std::string relist_duration_chart(const Report& report);
// Time in list calls vs. per-pod status inspection, stacked per relist.
std::string list_status_chart(const Report& report);

}  // namespace plegscope
