#pragma once
// A rule judges one cause from the evidence context. Rules are independent:
// how causes relate (pressure behind slow calls, long relists that need a
// cause) is decided afterwards, in interactions.h, never inside a rule.
#include <optional>
#include <vector>

#include "diagnoser/context.h"
#include "diagnoser/report.h"

namespace plegscope {

struct Rule {
  CauseId id;
  // nullopt when the cause is not present. A cause's remedy is filled in
  // from the cause table (cause_texts.h), not by the rule.
  std::optional<Cause> (*judge)(const Context& context);
};

// Every rule, one per cause id, in cause-id order.
const std::vector<Rule>& rule_table();

// A cause with its confidence rounded and capped below certainty: no
// measurement makes a diagnosis certain.
Cause make_cause(CauseId id, Severity severity, double confidence);

// The rules, one file each under rules/.
std::optional<Cause> judge_runtime_unavailable(const Context& c);
std::optional<Cause> judge_runtime_hung(const Context& c);
std::optional<Cause> judge_runtime_slow(const Context& c);
std::optional<Cause> judge_message_too_large(const Context& c);
std::optional<Cause> judge_too_many_containers(const Context& c);
std::optional<Cause> judge_event_storm(const Context& c);
std::optional<Cause> judge_pod_status_slow(const Context& c);
std::optional<Cause> judge_reinspect_backlog(const Context& c);
std::optional<Cause> judge_node_pressure(const Context& c);

}  // namespace plegscope
