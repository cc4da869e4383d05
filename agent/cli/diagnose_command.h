#pragma once
// `plegscope diagnose`: one report, printed, then exit.
//   - against the runtime: a Node relists for --duration, then its
//     DiagnosisService's report is printed;
//   - with --url: fetches a running agent's /diagnose?format=json
//     (http/agent_client.h) and renders it here.
// Exit status: 0 healthy, 1 at risk or unhealthy, 2 usage or connection error.
#include "cli/options.h"

namespace plegscope {

int run_diagnose(const Config& config);

}  // namespace plegscope
