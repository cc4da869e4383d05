local g = import 'panels.libsonnet';
local f = import '../lib/format.libsonnet';

{
  local c = $._config,
  local T = c.relistThresholdSeconds,
  local atRisk = std.floor(T / c.atRiskFraction),
  local limit = c.listMessageLimitBytes,
  local v = { sel: '%s%s, %s="$node"' % [c.plegscopeSelector, g.clusterMatcher(c, false), c.nodeLabel], node: c.nodeLabel, T: T, limit: limit },
  local s = g.sized,
  local diagnose = 'http://${instance}/diagnose?format=html',
  local diagnoseLink = [{ title: 'Open /diagnose', url: diagnose, targetBlank: true }],
  local q(expr) = expr % v,

  grafanaDashboards+:: {
    'pleg-node.json': g.dashboard(c, 'plegscope-node', 'PLEG node',
      "One node's PLEG as plegscope sees it: relist timing, CRI latency, errors and in-flight calls, events, pods, list answer sizes and diagnosed causes, with a link to /diagnose.",
      [
        g.row('Health'),
        s(g.stat('PLEG', g.targets([[q('min(pleg_healthy{%(sel)s})'), 'healthy']]), mappings=g.healthMappings,
                 links=diagnoseLink, desc="The kubelet's Healthy() rule as plegscope computes it."), 4, 4),
        s(g.stat('Seconds since last seen', g.targets([[q('time() - max(pleg_last_seen_seconds{%(sel)s})'), 'seconds']]),
                 unit='s', steps=[[atRisk, 'orange'], [T, 'red']]), 4, 4),
        s(g.stat('Top diagnosed cause', g.targets([[q('topk(1, max by (cause) (pleg_diagnosis_cause{%(sel)s}))'), '{{cause}}']], instant=true),
                 unit='percentunit', textMode='value_and_name', steps=[[0.5, 'orange'], [0.8, 'red']], links=diagnoseLink), 6, 4),
        s(g.stat('Evented PLEG', g.targets([[q('max(pleg_evented_mode{%(sel)s})'), 'evented']]),
                 mappings=[{ type: 'value', options: { '1': { text: 'evented', index: 0 }, '0': { text: 'generic', index: 1 } } }]), 3, 4),
        s(g.stat('Runtime', g.targets([[q('max by (runtime_name, runtime_version, version) (plegscope_build_info{%(sel)s})'),
                                        '{{runtime_name}} {{runtime_version}} (plegscope {{version}})']], instant=true),
                 textMode='name'), 7, 4),
        s(g.text("**[Open this node's /diagnose report](%s)** (ranked causes with evidence, relist timeline): the agent's pod IP over plain HTTP, so only from a browser inside the pod network and not with the web-auth component (https, credentials). From anywhere kubectl works, through the API server and without the node's kubelet or runtime: `kubectl plegscope diagnose ${node}` (`-o html` for this page), see the [runbook](%s#getting-the-evidence)."
                 % [diagnose, c.runbookURL]), 24, 3),

        g.row('Relist'),
        s(g.timeseries('Seconds since last seen vs threshold', g.targets([
          [q('time() - max(pleg_last_seen_seconds{%(sel)s})'), 'since last seen'],
          [q('0 * max(pleg_healthy{%(sel)s}) + %(T)d'), 'threshold (%s)' % f.promDuration(T)],
        ]), unit='s', steps=[[atRisk, 'orange'], [T, 'red']], lineThresholds=true, min=0), 12, 8),
        s(g.timeseries('Relist duration quantiles', g.targets([
          [q('histogram_quantile(0.5, sum by (le) (rate(pleg_relist_duration_seconds_bucket{%(sel)s}[$__rate_interval])))'), 'p50'],
          [q('histogram_quantile(0.99, sum by (le) (rate(pleg_relist_duration_seconds_bucket{%(sel)s}[$__rate_interval])))'), 'p99'],
        ]), unit='s', steps=[[c.relistDurationHighSeconds, 'orange'], [atRisk, 'red']], lineThresholds=true), 12, 8),
        s(g.heatmap('Relist duration', q('sum by (le) (increase(pleg_relist_duration_seconds_bucket{%(sel)s}[$__rate_interval]))'),
                    desc='Buckets reach 600s, past the %s threshold.' % f.promDuration(T)), 12, 8),
        s(g.heatmap('Relist interval', q('sum by (le) (increase(pleg_relist_interval_seconds_bucket{%(sel)s}[$__rate_interval]))'),
                    desc='Time between relist starts: the relist period plus relists that overrun it.'), 12, 8),
        s(g.timeseries('Relist errors and pods to reinspect', g.targets([
          [q('sum by (code) (rate(pleg_relist_errors_total{%(sel)s}[$__rate_interval]))'), 'relist errors {{code}}'],
          [q('max(pleg_pods_to_reinspect{%(sel)s})'), 'pods to reinspect'],
        ]), desc='Relist errors by gRPC code; a code appears with its first failure, as in the kubelet.'), 12, 8),
        s(g.timeseries('Events by type', g.targets([
          [q('sum by (event_type) (rate(pleg_events_total{%(sel)s}[$__rate_interval]))'), '{{event_type}}'],
          [q('sum(rate(pleg_discard_events_total{%(sel)s}[$__rate_interval]))'), 'discarded'],
        ]), unit='ops'), 12, 8),
        // Event lag: the first symptom of a slow PLEG, long before the threshold.
        s(g.timeseries('Event lag p50 / p99 by event type', g.targets([
          [q('histogram_quantile(0.5, sum by (event_type, le) (rate(pleg_event_lag_seconds_bucket{%(sel)s}[$__rate_interval])))'), 'p50 {{event_type}}'],
          [q('histogram_quantile(0.99, sum by (event_type, le) (rate(pleg_event_lag_seconds_bucket{%(sel)s}[$__rate_interval])))'), 'p99 {{event_type}}'],
          [q('sum(rate(pleg_event_lag_invalid_total{%(sel)s}[$__rate_interval]))'), 'invalid timestamps/s'],
        ]), unit='s', steps=[[c.eventLagHighSeconds, 'orange']], lineThresholds=true, min=0,
          desc="How late the PLEG sees a container change: from the runtime's own timestamp (started_at, finished_at, created_at) to the relist that emitted its event. A steady node stays within about one relist period plus the relist's duration; above %s, containers that die are restarted late and pods report Running late, long before PLEG is unhealthy. Invalid: timestamps missing, in the future or before creation (clock steps), counted apart." % f.promDuration(c.eventLagHighSeconds)), 24, 8),

        g.row('Container runtime (CRI)'),
        s(g.timeseries('CRI latency p50 / p99 by operation', g.targets([
          [q('histogram_quantile(0.5, sum by (operation_type, le) (rate(pleg_runtime_operations_duration_seconds_bucket{%(sel)s}[$__rate_interval])))'), 'p50 {{operation_type}}'],
          [q('histogram_quantile(0.99, sum by (operation_type, le) (rate(pleg_runtime_operations_duration_seconds_bucket{%(sel)s}[$__rate_interval])))'), 'p99 {{operation_type}}'],
        ]), unit='s'), 12, 8),
        s(g.timeseries('CRI calls by operation', g.targets([
          [q('sum by (operation_type) (rate(pleg_runtime_operations_total{%(sel)s}[$__rate_interval]))'), '{{operation_type}}'],
        ]), unit='ops'), 12, 8),
        s(g.timeseries('CRI error rate by operation', g.targets([
          [q('sum by (operation_type, code) (rate(pleg_runtime_operations_errors_total{%(sel)s}[$__rate_interval]))'), '{{operation_type}} {{code}}'],
          [q('sum by (operation_type) (rate(pleg_runtime_operations_errors_total{%(sel)s}[$__rate_interval])) / sum by (operation_type) (rate(pleg_runtime_operations_total{%(sel)s}[$__rate_interval]))'), 'error ratio {{operation_type}}'],
        ]), desc='CRIOperationErrors fires above a %s ratio.' % f.humanizePercentage(c.criErrorRatio)), 12, 8),
        s(g.timeseries('Oldest in-flight call', g.targets([
          [q('max by (operation_type) (pleg_runtime_operation_oldest_in_flight_seconds{%(sel)s})'), '{{operation_type}}'],
          [q('sum(pleg_runtime_operations_in_flight{%(sel)s})'), 'calls in flight'],
        ]), unit='s', steps=[[c.hangThresholdSeconds, 'red']], lineThresholds=true,
          desc='Age of the oldest unfinished call. Past the hang threshold (%s) the runtime is hung.' % f.promDuration(c.hangThresholdSeconds)), 12, 8),
        s(g.timeseries('List answer size vs gRPC limit', g.targets([
          [q('max by (operation_type) (pleg_runtime_list_response_bytes{%(sel)s})'), '{{operation_type}}'],
          [q('0 * max(pleg_healthy{%(sel)s}) + %(limit)d'), 'gRPC limit'],
        ]), unit='bytes', steps=[[std.floor(limit * c.listMessageWarnRatio), 'orange'], [limit, 'red']], lineThresholds=true, min=0), 12, 8),
        s(g.timeseries('List answer items', g.targets([
          [q('max by (operation_type) (pleg_runtime_list_items{%(sel)s})'), '{{operation_type}}'],
        ])), 12, 8),

        g.row('Pods and causes'),
        s(g.timeseries('Running pods and containers by state', g.targets([
          [q('max(pleg_running_pods{%(sel)s})'), 'running pods'],
          [q('sum by (container_state) (pleg_running_containers{%(sel)s})'), 'containers {{container_state}}'],
        ])), 12, 8),
        s(g.timeseries('Diagnosed causes over time', g.targets([
          [q('max by (cause) (pleg_diagnosis_cause{%(sel)s})'), '{{cause}}'],
        ]), unit='percentunit', steps=[[0.5, 'orange']], min=0), 12, 8),

        // Host evidence below the CRI.
        g.row('Host below the runtime'),
        s(g.timeseries('Blocked runtime helpers and zombies', g.targets([
          [q('max(pleg_host_blocked_processes{%(sel)s})'), 'helpers in D'],
          [q('max(pleg_host_zombie_processes{%(sel)s})'), 'zombies'],
        ]), min=0, desc='Shims, conmon or runc (or a thread of theirs) in uninterruptible sleep: see shim_hung in /diagnose for the pod and wchan. Zombies: defunct_processes names their parents.'), 8, 8),
        s(g.timeseries('PID limits in use', g.targets([
          [q('max by (scope) (pleg_host_pids_usage_ratio{%(sel)s})'), '{{scope}}'],
        ]), unit='percentunit', steps=[[0.9, 'red']], lineThresholds=true, min=0,
          desc="pids.current / pids.max of the runtime's cgroup and of kubepods, and the node's pid_max / threads-max: pid_exhaustion at 90 %."), 8, 8),
        s(g.timeseries("Runtime root's disk", g.targets([
          [q('max(pleg_host_runtime_disk_latency_seconds{%(sel)s})'), 'seconds per IO'],
          [q('max(pleg_host_runtime_disk_utilization{%(sel)s})'), 'utilization'],
        ]), min=0, steps=[[0.1, 'red']], lineThresholds=true,
          desc='The device under the runtime root: 100 ms per IO or 90 % busy is runtime_disk_slow when calls are slow beside it.'), 8, 8),
      ],
      g.variables(c, false) + [{
        name: 'instance', label: 'Agent', type: 'query', datasource: g.DS,
        query: { query: q('label_values(pleg_healthy{%(sel)s}, instance)'), refId: 'instance' },
        definition: q('label_values(pleg_healthy{%(sel)s}, instance)'),
        refresh: 2, sort: 1, hide: 2, current: {}, options: [], regex: '', multi: false, includeAll: false,
      }],
      links=[
        { title: '/diagnose', type: 'link', url: diagnose, icon: 'info', targetBlank: true,
          tooltip: "This node's plegscope report", asDropdown: false, includeVars: false, keepTime: false, tags: [] },
        { title: 'PLEG fleet', type: 'link', url: '/d/plegscope-fleet/pleg-fleet?${datasource:queryparam}',
          icon: 'dashboard', targetBlank: false, tooltip: '', asDropdown: false, includeVars: false, keepTime: true, tags: [] },
      ]),
  },
}
