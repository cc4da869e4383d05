local g = import 'panels.libsonnet';
local f = import '../lib/format.libsonnet';
local scope = import '../lib/scope.libsonnet';

{
  local c = $._config,
  local T = c.relistThresholdSeconds,
  local atRisk = std.floor(T / c.atRiskFraction),
  // With showMultiCluster, every aggregation keeps the cluster (same-named
  // nodes of two clusters are two nodes) and legends name it.
  local byLabels = if c.showMultiCluster then scope.nodeLabels(c) else [c.nodeLabel],
  local by = std.join(', ', byLabels),
  // The relist p99 panels read the recording rule's series (no job label:
  // the rule aggregates it away): a fleet-wide histogram_quantile over every
  // node's buckets at every step is the costliest query a fleet runs.
  local relistP99 = 'node_quantile:pleg_relist_duration_seconds:histogram_quantile_rate5m{quantile="0.99", %s=~"$node"%s}'
                    % [c.nodeLabel, g.clusterMatcher(c, true)],
  local v = { sel: '%s%s, %s=~"$node"' % [c.plegscopeSelector, g.clusterMatcher(c, true), c.nodeLabel], node: by, T: T, p99: relistP99,
              atRisk: atRisk, hang: f.num(c.hangThresholdSeconds),
              legend: std.join('/', ['{{%s}}' % l for l in byLabels]) },
  local s = g.sized,

  grafanaDashboards+:: {
    'pleg-fleet.json': g.dashboard(c, 'plegscope-fleet', 'PLEG fleet',
      'PLEG health across nodes, from plegscope. Nodes ranked by relist p99 and by seconds since last seen, unhealthy and at-risk nodes, discards and diagnosed causes.',
      [
        g.row('Fleet health'),
        s(g.stat('Nodes observed', g.targets([['count(count by (%(node)s) (pleg_healthy{%(sel)s}))' % v, 'nodes']]),
                 desc='Nodes with a plegscope agent being scraped.'), 4, 4),
        s(g.stat('Unhealthy nodes', g.targets([['count(max by (%(node)s) (pleg_healthy{%(sel)s}) == 0) or vector(0)' % v, 'unhealthy']]),
                 steps=[[1, 'red']], desc='PLEG not healthy by the kubelet\'s rule (last relist > %s ago).' % f.promDuration(T)), 4, 4),
        s(g.stat('At-risk nodes', g.targets([[
          'count(max by (%(node)s) (pleg_runtime_operation_oldest_in_flight_seconds{%(sel)s}) > %(hang)s or on (%(node)s) (time() - max by (%(node)s) (pleg_last_seen_seconds{%(sel)s} > 0)) > %(atRisk)d or on (%(node)s) max by (%(node)s) (%(p99)s) > %(atRisk)d) or vector(0)' % v,
          'at risk']]), steps=[[1, 'orange']],
          desc='A CRI call in flight > %s, no relist for > %s, or relist p99 over 5m > %s (the PLEGAtRisk arms).'
               % [f.promDuration(c.hangThresholdSeconds), f.promDuration(atRisk), f.promDuration(atRisk)]), 4, 4),
        s(g.stat('Events discarded', g.targets([['sum(increase(pleg_discard_events_total{%(sel)s}[$__range]))' % v, 'discarded']]),
                 steps=[[1, 'orange']], desc='PLEG events dropped on a full channel in the time range.'), 4, 4),
        s(g.stat('Relist p99, worst node', g.targets([['max(%(p99)s)' % v, 'p99']]),
                 unit='s', steps=[[c.relistDurationHighSeconds, 'orange'], [atRisk, 'red']]), 4, 4),
        s(g.stat('Worst seconds since last seen', g.targets([['max(time() - max by (%(node)s) (pleg_last_seen_seconds{%(sel)s}))' % v, 'seconds']]),
                 unit='s', steps=[[atRisk, 'orange'], [T, 'red']]), 4, 4),

        g.row('Nodes ranked'),
        s(g.bargauge('Nodes by relist p99 (5m)', g.targets([['topk(15, max by (%(node)s) (%(p99)s))' % v, '%(legend)s' % v]], instant=true),
                     unit='s', steps=[[c.relistDurationHighSeconds, 'orange'], [atRisk, 'red']], max=T,
                     desc='Relist p99 over 5m. PLEG is unhealthy at %s.' % f.promDuration(T)), 12, 9),
        s(g.bargauge('Nodes by seconds since last seen', g.targets([['topk(15, time() - max by (%(node)s) (pleg_last_seen_seconds{%(sel)s}))' % v, '%(legend)s' % v]], instant=true),
                     unit='s', steps=[[atRisk, 'orange'], [T, 'red']], max=T,
                     desc='Time since the last successful relist started. Unhealthy above %s.' % f.promDuration(T)), 12, 9),
        s(g.table('Node status', [
          g.target('min by (%(node)s) (pleg_healthy{%(sel)s})' % v, '', 'A', 'table', true),
          g.target('time() - max by (%(node)s) (pleg_last_seen_seconds{%(sel)s})' % v, '', 'B', 'table', true),
          g.target('max by (%(node)s) (pleg_runtime_operation_oldest_in_flight_seconds{%(sel)s})' % v, '', 'C', 'table', true),
          g.target('sum by (%(node)s) (pleg_running_pods{%(sel)s})' % v, '', 'D', 'table', true),
        ], mappings=g.healthMappings,
          desc='A: healthy, B: seconds since last seen, C: oldest in-flight CRI call (s), D: running pods.'), 24, 8),

        g.row('Over time'),
        s(g.timeseries('Relist p99 by node', g.targets([['max by (%(node)s) (%(p99)s)' % v, '%(legend)s' % v]]),
                       unit='s', steps=[[atRisk, 'orange'], [T, 'red']], lineThresholds=true,
                       desc='Relist p99 over 5m, as the recording rules keep it.'), 12, 8),
        s(g.timeseries('Seconds since last seen by node', g.targets([['time() - max by (%(node)s) (pleg_last_seen_seconds{%(sel)s})' % v, '%(legend)s' % v]]),
                       unit='s', steps=[[atRisk, 'orange'], [T, 'red']], lineThresholds=true), 12, 8),
        s(g.timeseries('Discarded events by node', g.targets([['sum by (%(node)s) (rate(pleg_discard_events_total{%(sel)s}[$__rate_interval]))' % v, '%(legend)s' % v]]),
                       unit='ops'), 12, 8),
        s(g.timeseries('CRI errors by node and operation', g.targets([['sum by (%(node)s, operation_type) (rate(pleg_runtime_operations_errors_total{%(sel)s}[$__rate_interval]))' % v, '%(legend)s {{operation_type}}' % v]]),
                       unit='ops', desc='Zero while no CRI call fails.'), 12, 8),
        // Event lag across the fleet: where changes are seen late.
        s(g.heatmap('Event lag, fleet', 'sum by (le) (increase(pleg_event_lag_seconds_bucket{%(sel)s}[$__rate_interval]))' % v,
                    desc="How late the PLEG sees container changes on the selected nodes, from the runtime's own timestamps to the relist that saw them (buckets 10 ms to 600 s). Mass above %s: containers that die are restarted late somewhere; the node dashboard's event-lag panel says which node." % f.promDuration(c.eventLagHighSeconds)), 12, 8),
        s(g.bargauge('Nodes by event lag p99 (5m)', g.targets([['topk(15, histogram_quantile(0.99, sum by (%(node)s, le) (rate(pleg_event_lag_seconds_bucket{%(sel)s}[5m]))))' % v, '%(legend)s' % v]], instant=true),
                     unit='s', steps=[[c.eventLagHighSeconds, 'orange']],
                     desc='Event lag p99 over 5m per node.'), 12, 8),

        g.row('Diagnosed causes'),
        s(g.bargauge('Nodes per cause (confidence > 0.5)', g.targets([['count by (cause) (pleg_diagnosis_cause{%(sel)s} > 0.5)' % v, '{{cause}}']], instant=true),
                     desc='How many nodes each cause is diagnosed on. Empty when the fleet is healthy.'), 8, 8),
        s(g.table('Top cause per node', [g.target('topk by (%(node)s) (1, pleg_diagnosis_cause{%(sel)s} > 0)' % v, '', 'A', 'table', true)],
                  unit='percentunit', desc='Highest-confidence cause on each node that has one.'), 8, 8),
        s(g.timeseries('Highest confidence per cause, fleet', g.targets([['max by (cause) (pleg_diagnosis_cause{%(sel)s})' % v, '{{cause}}']]),
                       unit='percentunit', min=0), 8, 8),
      ],
      g.variables(c, true),
      links=[{ title: 'PLEG node', type: 'link', url: '/d/plegscope-node/pleg-node?${datasource:queryparam}',
               icon: 'dashboard', targetBlank: false, tooltip: 'Per-node detail', asDropdown: false,
               includeVars: false, keepTime: true, tags: [] }]),
  },
}
