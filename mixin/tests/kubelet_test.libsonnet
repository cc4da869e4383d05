// promtool unit tests of alerts/kubelet.rules.yml, rendered from _config.
local f = import '../lib/format.libsonnet';
local lib = import 'lib.libsonnet';

{
  local c = $._config,
  local node = c.nodeLabel,
  local T = c.kubeletRelistThresholdSeconds,
  local S = std.floor(T / c.atRiskFraction),
  local F = c.forecastHorizonSeconds,
  local D = c.relistDurationHighSeconds,
  local R = c.criErrorRatio,
  local U = c.runtimeUnavailableSeconds,
  local base = lib.selectorLabels(c.kubeletSelector),
  local L(nodeName, extra={}) = base + { instance: nodeName + ':10250', [node]: nodeName } + extra,
  local S_(metric, labels, values) = { series: lib.series(metric, labels), values: values },
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local nodeOf(name) = { [node]: name },
  local hd = f.humanizeDuration,
  local pd = f.promDuration,

  kubeletTests:: {
    rule_files: ['../kubelet.rules.yml'],
    evaluation_interval: '1s',
    tests: [
      local fire = 60 + T + 1 + c.notHealthyForSeconds;
      {
        name: "KubeletPLEGNotHealthy at the kubelet's threshold (%s)" % pd(T),
        interval: '10s',
        input_series: [S_('kubelet_pleg_last_seen_seconds', L('worker-1'), '0+10x6 60x%d' % lib.samples(fire))],
        alert_rule_test: [
          lib.silent(fire - 1, 'KubeletPLEGNotHealthy'),
          lib.firing(fire, 'KubeletPLEGNotHealthy', [{
            exp_labels: nodeOf('worker-1') { severity: 'critical' },
            exp_annotations: {
              summary: "The kubelet's PLEG is not healthy on worker-1",
              description: 'The kubelet on node worker-1 last saw PLEG active %s ago; threshold is %s. The node is NotReady with "PLEG is not healthy". Install plegscope for the cause.'
                           % [hd(fire - 60), f.goDuration(T)],
              runbook_url: runbook('KubeletPLEGNotHealthy'),
            },
          }]),
        ],
      },

      local fire = 60 + S + 1 + c.atRiskForSeconds;
      {
        name: 'KubeletPLEGAtRisk on a last-seen older than %s' % pd(S),
        interval: '10s',
        input_series: [S_('kubelet_pleg_last_seen_seconds', L('worker-1'), '0+10x6 60x%d' % lib.samples(fire))],
        alert_rule_test: [
          lib.silent(fire - 1, 'KubeletPLEGAtRisk'),
          lib.firing(fire, 'KubeletPLEGAtRisk', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning', reason: 'last_seen_stale' },
            exp_annotations: {
              summary: "The kubelet's PLEG on worker-1 is at risk of becoming unhealthy (last_seen_stale)",
              description: 'The kubelet\'s PLEG on node worker-1 is heading for "PLEG is not healthy": the last successful relist was %s ago (threshold %s).'
                           % [hd(fire - 60), pd(T)],
              runbook_url: runbook('KubeletPLEGAtRisk'),
            },
          }]),
        ],
      },

      // worker-a list_containers in (S/2, 1.5 S]: p99 1.49 S. worker-b in (S/4, S/2]: inside.
      // Slow image pulls do not count.
      local fire = 10 + c.atRiskForSeconds;
      local n = lib.samples(fire);
      local b(name, op, le, values) = S_('kubelet_runtime_operations_duration_seconds_bucket', L(name, { operation_type: op, le: le }), values);
      {
        name: 'KubeletPLEGAtRisk on CRI list calls slower than %s' % pd(S),
        interval: '10s',
        input_series: [
          b('worker-a', 'list_containers', f.num(S / 2), '0x%d' % n),
          b('worker-a', 'list_containers', f.num(1.5 * S), '0+1x%d' % n),
          b('worker-a', 'list_containers', '+Inf', '0+1x%d' % n),
          b('worker-b', 'list_containers', f.num(S / 4), '0x%d' % n),
          b('worker-b', 'list_containers', f.num(S / 2), '0+1x%d' % n),
          b('worker-b', 'list_containers', '+Inf', '0+1x%d' % n),
          b('worker-b', 'pull_image', f.num(1.5 * S), '0x%d' % n),
          b('worker-b', 'pull_image', '+Inf', '0+1x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'KubeletPLEGAtRisk'),
          lib.firing(fire, 'KubeletPLEGAtRisk', [{
            exp_labels: nodeOf('worker-a') { severity: 'warning', reason: 'cri_list_slow' },
            exp_annotations: {
              summary: "The kubelet's PLEG on worker-a is at risk of becoming unhealthy (cri_list_slow)",
              description: 'The kubelet\'s PLEG on node worker-a is heading for "PLEG is not healthy": a CRI list/status call p99 over 5m is %s (limit %s).'
                           % [hd(0.5 * S + 0.99 * S), pd(S)],
              runbook_url: runbook('KubeletPLEGAtRisk'),
            },
          }]),
        ],
      },

      // forecast crosses the threshold at t=59.5; image pulls do not count.
      local slope = (T - 0.25) / (59.5 + F);
      local fire = 60 + c.atRiskForSeconds;
      local n = lib.samples(fire);
      local q(op, values) = S_('node_operation_type_quantile:kubelet_runtime_operations_duration_seconds:histogram_quantile_rate5m',
                               nodeOf('worker-c') { operation_type: op, quantile: '0.99' }, values);
      {
        name: 'KubeletPLEGAtRisk on a list p99 trend reaching %s within %s' % [pd(T), pd(F)],
        interval: '10s',
        input_series: [
          q('list_podsandbox', '0.25+%sx%d' % [f.num(10 * slope), n]),
          q('pull_image', '0+%sx%d' % [f.num(100 * slope), n]),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'KubeletPLEGAtRisk'),
          lib.firing(fire, 'KubeletPLEGAtRisk', [{
            exp_labels: nodeOf('worker-c') { severity: 'warning', reason: 'forecast' },
            exp_annotations: {
              summary: "The kubelet's PLEG on worker-c is at risk of becoming unhealthy (forecast)",
              description: 'The kubelet\'s PLEG on node worker-c is heading for "PLEG is not healthy": a CRI list/status call p99 is forecast to reach %s within %s (threshold %s).'
                           % [hd(0.25 + slope * (fire + F)), pd(F), pd(T)],
              runbook_url: runbook('KubeletPLEGAtRisk'),
            },
          }]),
        ],
      },

      // worker-a in (D/2, D]: 0.995 D. worker-b beyond D: reads as D, the top finite bucket.
      local fire = 10 + c.relistDurationHighForSeconds;
      local n = lib.samples(fire);
      local b(name, le, values) = S_('kubelet_pleg_relist_duration_seconds_bucket', L(name, { le: le }), values);
      {
        name: 'KubeletPLEGRelistDurationHigh when p99 reaches %s' % pd(D),
        interval: '10s',
        input_series: [
          b('worker-a', f.num(D / 2), '0x%d' % n), b('worker-a', f.num(D), '0+1x%d' % n), b('worker-a', '+Inf', '0+1x%d' % n),
          b('worker-b', f.num(D / 2), '0x%d' % n), b('worker-b', f.num(D), '0x%d' % n), b('worker-b', '+Inf', '0+1x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'KubeletPLEGRelistDurationHigh'),
          lib.firing(fire, 'KubeletPLEGRelistDurationHigh', [{
            exp_labels: nodeOf('worker-b') { severity: 'warning' },
            exp_annotations: {
              summary: "The kubelet's PLEG relist on worker-b is slow",
              description: "The 99th percentile of the kubelet's PLEG relist duration on node worker-b is %s over the last 5m (warning at %s; the kubelet's buckets stop at 10s, so the real value may be much higher)."
                           % [hd(D), pd(D)],
              runbook_url: runbook('KubeletPLEGRelistDurationHigh'),
            },
          }]),
        ],
      },

      local discard(name, count) = {
        exp_labels: nodeOf(name) { severity: 'warning' },
        exp_annotations: {
          summary: "The kubelet's PLEG on %s is discarding events" % name,
          description: "The kubelet's PLEG on node %s discarded %d events in the last 5m because its event channel was full (capacity 1000)." % [name, count],
          runbook_url: runbook('KubeletPLEGDiscardingEvents'),
        },
      };
      {
        name: 'KubeletPLEGDiscardingEvents accepts the counter with and without _total',
        interval: '10s',
        input_series: [
          S_('kubelet_pleg_discard_events', L('worker-old'), '0x10 3x30'),
          S_('kubelet_pleg_discard_events_total', L('worker-new'), '0x10 1x30'),
          S_('kubelet_pleg_discard_events_total', L('worker-quiet'), '0x40'),
        ],
        alert_rule_test: [
          lib.silent(109, 'KubeletPLEGDiscardingEvents'),
          lib.firing(110, 'KubeletPLEGDiscardingEvents', [discard('worker-new', 1), discard('worker-old', 3)]),
        ],
      },

      local fire = 10 + c.criErrorsForSeconds;
      local n = lib.samples(fire);
      {
        name: 'KubeletCRIOperationErrors above %s' % f.humanizePercentage(R),
        interval: '10s',
        input_series: [
          S_('kubelet_runtime_operations_total', L('worker-1', { operation_type: 'list_containers' }), '0+10x%d' % n),
          S_('kubelet_runtime_operations_errors_total', L('worker-1', { operation_type: 'list_containers' }), '0+%sx%d' % [f.num(20 * R), n]),
          S_('kubelet_runtime_operations_total', L('worker-1', { operation_type: 'container_status' }), '0+10x%d' % n),
          S_('kubelet_runtime_operations_errors_total', L('worker-1', { operation_type: 'container_status' }), '0+%sx%d' % [f.num(8 * R), n]),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'KubeletCRIOperationErrors'),
          lib.firing(fire, 'KubeletCRIOperationErrors', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning', operation_type: 'list_containers' },
            exp_annotations: {
              summary: "The kubelet's CRI list_containers calls are failing on worker-1",
              description: "%s of the kubelet's list_containers calls to the container runtime on node worker-1 failed over the last 5m (warning above %s)."
                           % [f.humanizePercentage(2 * R), f.humanizePercentage(R)],
              runbook_url: runbook('KubeletCRIOperationErrors'),
            },
          }]),
        ],
      },

      // Status fails from t=70; the alert needs the 2m failure ratio at 0.9
      // (first second found below, 179 with the defaults) and PLEG stale
      // past U after its last relist at t=60.
      local errors = [[10 * k, std.max(0, 2 * (k - 7))] for k in std.range(0, 80)];
      local total = [[10 * k, 2 * k] for k in std.range(0, 80)];
      local ratio(t) = lib.increase(errors, t, 120) / lib.increase(total, t, 120);
      local start = std.max(std.filter(function(t) ratio(t) >= 0.9, std.range(70, 400))[0], 60 + U + 1);
      local fire = start + c.runtimeUnavailableForSeconds;
      local n = lib.samples(fire);
      {
        name: 'KubeletCRIRuntimeUnavailable when Status calls all fail and PLEG is stale',
        interval: '10s',
        input_series: [
          S_('kubelet_pleg_last_seen_seconds', L('worker-1'), '0+10x6 60x%d' % n),
          S_('kubelet_runtime_operations_total', L('worker-1', { operation_type: 'status' }), '0+2x%d' % (n + 6)),
          S_('kubelet_runtime_operations_errors_total', L('worker-1', { operation_type: 'status' }), '0x6 0+2x%d' % n),
          // worker-2: Status fails but PLEG keeps relisting: silent.
          S_('kubelet_pleg_last_seen_seconds', L('worker-2'), '0+10x%d' % (n + 6)),
          S_('kubelet_runtime_operations_total', L('worker-2', { operation_type: 'status' }), '0+2x%d' % (n + 6)),
          S_('kubelet_runtime_operations_errors_total', L('worker-2', { operation_type: 'status' }), '0+2x%d' % (n + 6)),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'KubeletCRIRuntimeUnavailable'),
          lib.firing(fire, 'KubeletCRIRuntimeUnavailable', [{
            exp_labels: nodeOf('worker-1') { severity: 'critical' },
            exp_annotations: {
              summary: 'The container runtime on worker-1 is unavailable to the kubelet',
              description: "%s of the kubelet's Status/Version calls to the container runtime on node worker-1 failed over the last 2m and PLEG has not relisted for over %s."
                           % [f.humanizePercentage(ratio(fire)), pd(U)],
              runbook_url: runbook('KubeletCRIRuntimeUnavailable'),
            },
          }]),
        ],
      },

    ],
  },
}
