#pragma once
// The node condition's flags, bound to its options beside them, as each
// source's flags are bound in its own room.
#include <CLI/CLI.hpp>

#include "condition/node_condition_writer.h"

namespace plegscope {

// ENABLED is --node-condition; CONDITION the policy and the repair gate.
void add_flags(CLI::App& app, bool& enabled, NodeConditionOptions& condition);

}  // namespace plegscope
