#pragma once
// The transition log line: one JSON object per change of the diagnosis'
// status, written on stdout by `plegscope serve`. Log pipelines (Loki,
// Fluent Bit, CloudWatch) keep it after the node and its agent are gone, so
// it carries what the on-call engineer needs without the node: the status,
// the top causes with their evidence and culprit, and when.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "diagnoser/report.h"

namespace plegscope {

// Top causes kept in a record: the report ranks them, and the first few
// carry the verdict; the full list is one /diagnose away while the node lives.
inline constexpr size_t kTransitionRecordCauses = 3;

nlohmann::json transition_record(const Report& report, std::optional<Status> previous,
                                 int64_t suppressed, const std::string& version);

}  // namespace plegscope
