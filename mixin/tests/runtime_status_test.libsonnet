// promtool tests of alerts/runtime_status.libsonnet, in plegscope_test.yml:
// each alert silent just inside its boundary and firing at it.
local f = import '../lib/format.libsonnet';
local lib = import 'lib.libsonnet';

{
  local c = $._config,
  local node = c.nodeLabel,
  local base = lib.selectorLabels(c.plegscopeSelector),
  local L(instance, nodeName, extra={}) = base + { instance: instance, [node]: nodeName } + extra,
  local S_(metric, labels, values) = { series: lib.series(metric, labels), values: values },
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local nodeOf(name) = { [node]: name },
  local D = c.runtimeStatusDownSeconds,
  local R = c.runtimeNotReadyForSeconds,

  plegscopeTests+:: {
    tests+: [
      // worker-1's last good Status was at t=0 (10 s samples of the age);
      // worker-2's runtime answers every 5 s. It fires once the age has
      // been past the kubelet's 30 s for its node status period, when the
      // kubelet writes NotReady.
      local down = 10 * std.ceil((D + c.runtimeStatusDownForSeconds) / 10);
      {
        name: 'CRIRuntimeStatusDown %s after %s without a good Status' % [f.promDuration(c.runtimeStatusDownForSeconds), f.promDuration(D)],
        interval: '10s',
        input_series: [
          S_('pleg_runtime_status_seconds_since_success', L('10.0.0.1:9547', 'worker-1'), '0+10x%d' % lib.samples(down)),
          S_('pleg_runtime_status_seconds_since_success', L('10.0.0.2:9547', 'worker-2'), '4x%d' % lib.samples(down)),
        ],
        alert_rule_test: [
          lib.silent(D, 'CRIRuntimeStatusDown'),
          lib.silent(down - 1, 'CRIRuntimeStatusDown'),
          lib.firing(down, 'CRIRuntimeStatusDown', [{
            exp_labels: nodeOf('worker-1') { severity: 'critical' },
            exp_annotations: {
              summary: 'The kubelet on worker-1 finds its container runtime down',
              description: 'The container runtime on node worker-1 has not answered CRI Status with RuntimeReady true for %s: the kubelet marks the node NotReady with "container runtime is down" from %s on, whatever PLEG says. Its container lists may still answer (a Status waiting on the CNI lock).'
                           % [f.humanizeDuration(down), f.promDuration(D)],
              runbook_url: runbook('CRIRuntimeStatusDown'),
            },
          }]),
        ],
      },

      // worker-1's NetworkReady false from t=10; its RuntimeReady and
      // worker-2's conditions stay true.
      local fire = 10 + R;
      local n = lib.samples(fire);
      {
        name: 'CRIRuntimeNotReady after %s of NetworkReady false' % f.promDuration(R),
        interval: '10s',
        input_series: [
          S_('pleg_runtime_condition', L('10.0.0.1:9547', 'worker-1', { condition: 'NetworkReady' }), '1 0x%d' % n),
          S_('pleg_runtime_condition', L('10.0.0.1:9547', 'worker-1', { condition: 'RuntimeReady' }), '1x%d' % n),
          S_('pleg_runtime_condition', L('10.0.0.2:9547', 'worker-2', { condition: 'NetworkReady' }), '1x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'CRIRuntimeNotReady'),
          lib.firing(fire, 'CRIRuntimeNotReady', [{
            exp_labels: nodeOf('worker-1') { severity: 'critical', condition: 'NetworkReady' },
            exp_annotations: {
              summary: 'The container runtime on worker-1 says NetworkReady false',
              description: 'The container runtime on node worker-1 has answered CRI Status with NetworkReady false (value 0) for over %s: the kubelet keeps the node NotReady ("container runtime not ready" or "container runtime network not ready") until the runtime says it is ready again.'
                           % f.promDuration(R),
              runbook_url: runbook('CRIRuntimeNotReady'),
            },
          }]),
        ],
      },
    ],
  },
}
