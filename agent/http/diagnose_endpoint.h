#pragma once
// /diagnose and the pleg_diagnosis_cause gauge: the diagnoser bound to a
// running Monitor. Both gather a fresh snapshot on every request, taking only
// short locks, so they answer while a CRI call hangs.
#include "config.h"
#include "diagnoser/diagnoser.h"
#include "gather_snapshot.h"
#include "http_server.h"
#include "monitor.h"
#include "node/node_pressure.h"

namespace plegscope {

DiagnoserThresholds thresholds_from(const Config& config);

// The monitor's current report (snapshot + node pressure from --proc-path).
Report current_report(Monitor& monitor);

// GET /diagnose[?format=json|text|html]; any other format is a 400.
HttpResponse diagnose_response(Monitor& monitor, const HttpRequest& request);

}  // namespace plegscope
