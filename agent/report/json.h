#pragma once
// The /diagnose JSON (docs/report.md), both ways: the agent writes it, and
// `plegscope diagnose --url` reads a running agent's answer back into a
// Report to render it locally.
#include <nlohmann/json.hpp>

#include "diagnoser/culprit.h"
#include "diagnoser/report.h"

namespace plegscope {

// Every number rounded to microseconds: enough for latencies, short on the wire.
nlohmann::json report_to_json(const Report& report);
// Throws (nlohmann::json::exception or std::invalid_argument, with a one-line
// what()) on a body that is not a §6 report, or names a status, severity,
// cause id or gRPC code this build does not know. Missing optional fields
// keep the Report's defaults.
Report report_from_json(const nlohmann::json& json);
// A cause's culprit (diagnoser/culprit.h) as each cause's "culprit" object:
// only the fields it has; an empty object when it names nothing.
nlohmann::json culprit_json(const Culprit& culprit);

}  // namespace plegscope
