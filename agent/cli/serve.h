#pragma once
#include "cli/options.h"

namespace plegscope {

// Runs the agent until SIGTERM or SIGINT; returns the process exit status.
int serve(const Config& config);

}  // namespace plegscope
