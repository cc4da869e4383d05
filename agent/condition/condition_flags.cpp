// The acting side's flags: whether the agent writes the node conditions,
// the policy's timings, and the gates before NodeRepairAdvised.
#include "condition/condition_flags.h"

#include <cstdlib>
#include <string>

#include "common/flag_binding.h"

namespace plegscope {

void add_flags(CLI::App& app, bool& enabled, NodeConditionOptions& condition) {
  ConditionPolicyOptions& policy = condition.policy;
  add_switch_flag(app, "--node-condition", enabled,
                  "write the conditions plegscope.io/PLEGUnhealthy and plegscope.io/NodeRepairAdvised and Events on "
                  "the agent's own Node through the API server (needs deploy/components/node-condition's RBAC); off by "
                  "default");
  add_duration_flag(app, "--node-condition-hold", policy.hold,
                    "at risk with a critical cause (a hung call, a shim in D) for this long sets the condition True; "
                    "unhealthy sets it at once",
                    true);
  add_duration_flag(app, "--node-condition-clear-after", policy.clear_after,
                    "healthy for this long sets the condition False; also the wait before the first False");
  add_duration_flag(app, "--node-condition-min-interval", policy.min_interval,
                    "at most one change of status or reason per this interval while flapping", true);
  add_duration_flag(app, "--node-condition-heartbeat", policy.heartbeat,
                    "the condition is written again this often when nothing changes");
  add_duration_flag(app, "--node-repair-advised-after", condition.repair_after,
                    "a node-level cause (advice other than fix-pod) held this long sets plegscope.io/NodeRepairAdvised "
                    "True, the condition node-repairing remediators match");
  app.add_option_function<std::string>(
         "--node-repair-fleet-max-share",
         [&condition](const std::string& text) {
           char* end = nullptr;
           const double share = std::strtod(text.c_str(), &end);
           if (text.empty() || *end != '\0' || !(share > 0 && share <= 1))
             throw UsageError{"--node-repair-fleet-max-share: invalid value \"" + text +
                              "\" (expected a share above 0 and at most 1, such as 0.2; 1 turns the guard off)"};
           condition.gate.fleet_max_share = share;
         },
         "plegscope.io/NodeRepairAdvised is withheld on every node while more than this share of the cluster's "
         "agents (and at least two) advise repair or are about to (needs list nodes); 1 turns the guard off")
      ->envname(flag_env("--node-repair-fleet-max-share"))
      ->default_str("0.2");
}

}  // namespace plegscope
