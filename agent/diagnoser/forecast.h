#pragma once
// Seconds until PLEG turns unhealthy by the kubelet's rule, when that can be
// told from the measurements; nullopt when nothing points there.
#include <optional>

#include "diagnoser/context.h"

namespace plegscope {

std::optional<double> forecast_seconds_to_unhealthy(const Context& c);

}  // namespace plegscope
