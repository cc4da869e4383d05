// promtool tests of alerts/repair.libsonnet, in plegscope_test.yml, from
// the state set each agent exports (pleg_node_repair_advice{state}).
// Cluster a, 5 agents: w1 and w2 withheld by their own fleet guard.
// Cluster b, 4 agents with the guard off: 3 advised at once.
// Cluster c, 5 agents: one advised alone (20 %, one node) and nothing else.
// Cluster d, 1 agent: advised (a one-node cluster is never a fleet).
local f = import '../lib/format.libsonnet';
local lib = import 'lib.libsonnet';

{
  local c = $._config,
  local F = c.repairWithheldFleetForSeconds,
  local n = lib.samples(F + 20),
  local base = lib.selectorLabels(c.plegscopeSelector),
  local states = ['advised', 'not_advised', 'withheld_kubelet_disagrees', 'withheld_kubelet_unreadable',
                  'withheld_fleet_share', 'withheld_fleet_unknown'],
  // The six series of one agent, 1 for `now`.
  local agent(cluster, nodeName, now) = [
    {
      series: lib.series('pleg_node_repair_advice', base { [c.clusterLabel]: cluster, [c.nodeLabel]: nodeName, instance: nodeName + ':9547', state: s }),
      values: '%dx%d' % [if s == now then 1 else 0, n],
    }
    for s in states
  ],
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local fired(cluster, share) = {
    exp_labels: { [c.clusterLabel]: cluster, severity: 'warning' },
    exp_annotations: {
      summary: 'Node repair advice withheld across cluster %s' % cluster,
      description: '%s of the plegscope agents of cluster %s advise repairing their node or are held back from it, more than the %s (and at least two nodes) one node can explain. plegscope.io/NodeRepairAdvised stays False on every node meanwhile, so no remediator reboots or replaces nodes one after another for a cause they share: a rollout of the runtime, the kernel or the node image, or the agent itself. Look for what these nodes have in common (PLEGFleetWideCause names a shared cause); `kubectl plegscope diagnose <node>` shows each node\'s cause and, under its node condition, why its advice is withheld.'
                   % [f.humanizePercentage(share), cluster, f.humanizePercentage(c.repairFleetMaxShare)],
      runbook_url: runbook('PlegscopeRepairWithheldFleetWide'),
    },
  },

  plegscopeTests+:: {
    tests+: [
      {
        name: 'PlegscopeRepairWithheldFleetWide after %s, by the agents\' guard or Prometheus\' share' % f.promDuration(F),
        interval: '10s',
        input_series:
          agent('a', 'a1', 'withheld_fleet_share') + agent('a', 'a2', 'withheld_fleet_share')
          + agent('a', 'a3', 'not_advised') + agent('a', 'a4', 'withheld_kubelet_disagrees') + agent('a', 'a5', 'not_advised')
          + agent('b', 'b1', 'advised') + agent('b', 'b2', 'advised') + agent('b', 'b3', 'advised') + agent('b', 'b4', 'not_advised')
          + agent('c', 'c1', 'advised') + agent('c', 'c2', 'not_advised') + agent('c', 'c3', 'not_advised')
          + agent('c', 'c4', 'withheld_kubelet_unreadable') + agent('c', 'c5', 'not_advised')
          + agent('d', 'd1', 'advised'),
        alert_rule_test: [
          lib.silent(F - 10, 'PlegscopeRepairWithheldFleetWide'),
          lib.firing(F, 'PlegscopeRepairWithheldFleetWide', [fired('a', 0.4), fired('b', 0.75)]),
        ],
      },
    ],
  },
}
