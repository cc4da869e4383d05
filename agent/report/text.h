#pragma once
// The terminal rendering of a Report: `/diagnose?format=text` and
// `plegscope diagnose`.
#include <string>

#include "diagnoser/diagnoser.h"

namespace plegscope {

std::string render_text(const Report& report);

// Shared by the renderers: "250ms", "1.5s", "3m4s".
std::string format_seconds(double seconds);
// "HEALTHY", "AT RISK", "UNHEALTHY"
std::string status_label(Status status);

}  // namespace plegscope
