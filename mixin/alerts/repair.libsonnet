// plegscope.io/NodeRepairAdvised held back fleet-wide. Each agent with
// --node-condition exports pleg_node_repair_advice{state}: one series per
// state, 1 for the state in force. An agent withholds its advice while more
// than --node-repair-fleet-max-share of the cluster's agents (and at least
// two) advise repair or are about to (agent/condition/repair_gate.h). That
// is no single node's fault (a rollout of the runtime, the kernel or the node
// image, the agent itself), and no remediator should act on it node by node;
// this alert says so once for the cluster, keyed by the cluster alone.
// It also fires where the agents' own guard is off (share 1) but Prometheus
// sees more than the share advised at once.
local f = import '../lib/format.libsonnet';

{
  _config+:: {
    // The agents' --node-repair-fleet-max-share (0.2); 1 here turns
    // Prometheus' own arm off.
    repairFleetMaxShare: 0.2,
    repairWithheldFleetForSeconds: 60,
  },

  local c = $._config,
  local cluster = std.join(', ', [c.clusterLabel] + c.additionalAggregationLabels),
  local node = std.join(', ', [c.clusterLabel] + c.additionalAggregationLabels + [c.nodeLabel]),
  local state(s) = 'max by (%s) (pleg_node_repair_advice{%s, state=~"%s"})' % [node, c.plegscopeSelector, s],
  // Agents at the repair stage (advised or held back by the fleet), and all
  // agents that export the state set.
  local atRepair = 'count by (%s) (%s == 1)' % [cluster, state('advised|withheld_fleet_share')],
  local agents = 'count by (%s) (%s)' % [cluster, state('advised')],
  local withheld = 'count by (%s) (%s == 1)' % [cluster, state('withheld_fleet_share')],
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),

  prometheusAlerts+:: {
    groups+: [{
      name: 'plegscope-repair',
      rules: [
        {
          alert: 'PlegscopeRepairWithheldFleetWide',
          // The value is the share of the cluster's agents at the repair stage.
          expr: |||
            (%(atRepair)s / on (%(cluster)s) %(agents)s)
            and on (%(cluster)s)
            (
              %(withheld)s > 0
              or on (%(cluster)s)
              (%(atRepair)s >= 2 and on (%(cluster)s) (%(atRepair)s / on (%(cluster)s) %(agents)s > %(share)s))
            )
          ||| % { atRepair: atRepair, agents: agents, withheld: withheld, cluster: cluster, share: f.num(c.repairFleetMaxShare) },
          'for': f.promDuration(c.repairWithheldFleetForSeconds),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'Node repair advice withheld across cluster {{ $labels.%s }}' % c.clusterLabel,
            description: '{{ $value | humanizePercentage }} of the plegscope agents of cluster {{ $labels.%s }} advise repairing their node or are held back from it, more than the %s (and at least two nodes) one node can explain. plegscope.io/NodeRepairAdvised stays False on every node meanwhile, so no remediator reboots or replaces nodes one after another for a cause they share: a rollout of the runtime, the kernel or the node image, or the agent itself. Look for what these nodes have in common (PLEGFleetWideCause names a shared cause); `kubectl plegscope diagnose <node>` shows each node\'s cause and, under its node condition, why its advice is withheld.'
                         % [c.clusterLabel, f.humanizePercentage(c.repairFleetMaxShare)],
            runbook_url: runbook('PlegscopeRepairWithheldFleetWide'),
          },
        },
      ],
    }],
  },
}
