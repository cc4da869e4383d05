#pragma once
// The words the cluster reads from the node condition and its Events
// (--node-condition): the culprit in one line, the advice, and where the
// full report is; and why the API server did not take a write, with the fix.
// Stateless.
#include <optional>
#include <string>

#include "diagnoser/report.h"

namespace plegscope {

// The condition's message for `cause` (nullopt: healthy) from `report`:
// "<cause summary> Advice: restart-runtime. Full report: kubectl plegscope
// diagnose <node>". One line, at most 1024 bytes.
std::string condition_message(const Report& report, std::optional<CauseId> cause);

// A failed write to the API server (patch nodes/<node>/status, create or
// patch events) in words, with its fix.
std::string node_condition_error_words(const WriteOutcome& outcome);

}  // namespace plegscope
