#pragma once
// The diagnoser: a pure function from a Snapshot to a Report (docs/report.md).
// Evidence context (context.h) -> one rule per cause id (rule.h, rules/) ->
// interactions between their findings (interactions.h) -> ranking ->
// forecast (forecast.h) -> status. Every cause names the evidence it
// measured and the threshold it compared against, as typed values: the
// words (summaries, remedies, the report's summary) are agent/report's
// (report/wording.h), which the renderers apply. No I/O, no clock: time
// comes from Snapshot::now.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diagnoser/report.h"
#include "diagnoser/snapshot.h"
#include "diagnoser/thresholds.h"

namespace plegscope {

// The whole diagnosis. Pure: same snapshot, same report.
Report diagnose(const Snapshot& snapshot, const DiagnoserThresholds& thresholds);

// Confidence of every cause id (0 when absent), for pleg_diagnosis_cause.
std::map<CauseId, double> cause_confidences(const Report& report);

}  // namespace plegscope
