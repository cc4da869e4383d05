#pragma once
// The /diagnose JSON (DESIGN §6), both ways: the agent writes it, and
// `plegscope diagnose --url` reads a running agent's answer back into a
// Report to render it locally.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "diagnoser/diagnoser.h"

namespace plegscope {

nlohmann::json report_to_json(const Report& report);
// Throws nlohmann::json::exception (or std::invalid_argument) on a body
// that is not a §6 report.
Report report_from_json(const nlohmann::json& json);

// Parses "2026-11-22T05:00:00.123Z" (what rfc3339() writes); nullopt otherwise.
std::optional<TimePoint> parse_rfc3339(const std::string& text);

}  // namespace plegscope
