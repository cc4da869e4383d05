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
    runtimeNotReadyForSeconds: 60,
  },

  local c = $._config,
  local v = { sel: c.plegscopeSelector, by: scope.by(c), down: c.runtimeStatusDownSeconds },
  local n = '{{ $labels.%s }}' % c.nodeLabel,
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),

  prometheusAlerts+:: {
    groups+: [{
      name: 'plegscope-runtime-status',
      rules: [
        {
          alert: 'CRIRuntimeStatusDown',
          expr: 'max by (%(by)s) (pleg_runtime_status_seconds_since_success{%(sel)s}) >= %(down)d\n' % v,
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
          expr: 'min by (%(by)s, condition) (pleg_runtime_condition{%(sel)s}) == 0\n' % v,
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
