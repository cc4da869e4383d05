// The kubelet's other path to NotReady: the runtime's CRI Status, which the
// kubelet calls every 5 s. No answer with RuntimeReady true for 30 s is
// "container runtime is down" (fixed in the kubelet, no flag changes it);
// RuntimeReady or NetworkReady false keeps the node NotReady while it lasts.
// PLEG's alerts do not see either: the lists may answer at once.
local f = import '../lib/format.libsonnet';
local scope = import '../lib/scope.libsonnet';

{
  _config+:: {
    runtimeStatusDownSeconds: 30,
    // The kubelet writes the Node's Ready condition every
    // nodeStatusUpdateFrequency (10 s): it turns NotReady within that long
    // after the 30 s have passed. Held that long, the alert fires when the
    // Node does, never on one sample (an agent that cannot read the
    // runtime also sees no answer, and is excluded by the blind guard).
    runtimeStatusDownForSeconds: 10,
    runtimeNotReadyForSeconds: 60,
  },

  local c = $._config,
  local v = { sel: c.plegscopeSelector, by: scope.by(c), down: c.runtimeStatusDownSeconds, blind: scope.agentBlind(c) },
  local n = '{{ $labels.%s }}' % c.nodeLabel,
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),

  prometheusAlerts+:: {
    groups+: [{
      name: 'plegscope-runtime-status',
      rules: [
        {
          alert: 'CRIRuntimeStatusDown',
          expr: |||
            max by (%(by)s) (pleg_runtime_status_seconds_since_success{%(sel)s}) >= %(down)d
            unless on (%(by)s)
            %(blind)s
          ||| % v,
          'for': f.promDuration(c.runtimeStatusDownForSeconds),
          labels: { severity: 'critical' },
          annotations: {
            summary: 'The kubelet on %s finds its container runtime down' % n,
            description: 'The container runtime on node %s has not answered CRI Status with RuntimeReady true for {{ $value | humanizeDuration }}: the kubelet marks the node NotReady with "container runtime is down" from %s on, whatever PLEG says. Its container lists may still answer (a Status waiting on the CNI lock).'
                         % [n, f.promDuration(c.runtimeStatusDownSeconds)],
            runbook_url: runbook('CRIRuntimeStatusDown'),
          },
        },
        {
          alert: 'CRIRuntimeNotReady',
          // pleg_runtime_condition exists only once the runtime answered
          // Status: a runtime that never answered said nothing "not ready".
          expr: |||
            min by (%(by)s, condition) (pleg_runtime_condition{%(sel)s}) == 0
            unless on (%(by)s)
            %(blind)s
          ||| % v,
          'for': f.promDuration(c.runtimeNotReadyForSeconds),
          labels: { severity: 'critical' },
          annotations: {
            summary: 'The container runtime on %s says {{ $labels.condition }} false' % n,
            description: 'The container runtime on node %s has answered CRI Status with {{ $labels.condition }} false (value {{ $value }}) for over %s: the kubelet keeps the node NotReady ("container runtime not ready" or "container runtime network not ready") until the runtime says it is ready again.'
                         % [n, f.promDuration(c.runtimeNotReadyForSeconds)],
            runbook_url: runbook('CRIRuntimeNotReady'),
          },
        },
      ],
    }],
  },
}
