#pragma once
// A rule judges one cause from the evidence context and returns a typed
// finding, never words. Rules are independent: how causes relate (pressure
// behind slow calls, long relists that need a cause) is decided afterwards,
// in interactions.h, never inside a rule.
#include <optional>
#include <vector>

#include "diagnoser/context.h"
#include "diagnoser/finding.h"

namespace plegscope {

struct Rule {
  CauseId id;
  std::optional<Finding> (*judge)(const Context& context);  // nullopt: not present
};

// Every rule, one per cause id, in cause-list order.
const std::vector<Rule>& rule_table();

// The rules, one file each: rules/<name>.cpp defines judge_<name>.
#define PLEGSCOPE_CAUSE_RULE(id, name) std::optional<Finding> judge_##name(const Context& c);
PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_RULE)
#undef PLEGSCOPE_CAUSE_RULE

}  // namespace plegscope
