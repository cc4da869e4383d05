// promtool unit tests of alerts/plegscope.rules.yml, rendered from the same
// _config: every alert silent just inside its boundary and firing at it,
// with its labels and annotations. Series are 10 s samples; promtool's
// clock starts at 0, so time() at eval_time 241s is 241.
local f = import '../lib/format.libsonnet';
local lib = import 'lib.libsonnet';

{
  local c = $._config,
  local node = c.nodeLabel,
  local T = c.relistThresholdSeconds,
  local H = c.hangThresholdSeconds,
  local S = std.floor(T / c.atRiskFraction),  // at-risk: stale last-seen, relist p99
  local F = c.forecastHorizonSeconds,
  local D = c.relistDurationHighSeconds,
  local R = c.criErrorRatio,
  local U = c.runtimeUnavailableSeconds,
  local base = lib.selectorLabels(c.plegscopeSelector),
  local L(instance, nodeName, extra={}) = base + { instance: instance, [node]: nodeName } + extra,
  local S_(metric, labels, values) = { series: lib.series(metric, labels), values: values },
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local nodeOf(name) = { [node]: name },
  local hd = f.humanizeDuration,
  local pd = f.promDuration,
  local causeText(cause, conf) = 'Top diagnosed cause: %s (confidence %s).' % [cause, conf],
  local noCause = 'Top diagnosed cause: none reported.',
  // The labels that place a node in a cluster: the cluster label and any
  // additional aggregation labels.
  local where(cluster) = { [c.clusterLabel]: cluster } + { [l]: 'r1' for l in c.additionalAggregationLabels },

  plegscopeTests:: {
    rule_files: ['../plegscope.rules.yml'],
    evaluation_interval: '1s',
    // promtool evaluates every group at every step, in no fixed order unless
    // told: the recording group first, so alerts that read recorded series
    // see them in the same step (a real Prometheus may serve them up to one
    // recording interval late, inside every such alert's `for:`).
    group_eval_order: ['plegscope.records', 'plegscope.alerts', 'plegscope-runtime-status'],
    tests: [
      // ------------------------------------------------------------ KubeletPLEGStuck
      // worker-1's kubelet stopped relisting at t=60 while plegscope there is
      // healthy; worker-2's too, but plegscope is unhealthy there (the
      // runtime, not the kubelet); worker-3's kubelet relists.
      local K = c.kubeletStuckSeconds;
      local fire = 60 + K + 1 + c.kubeletStuckForSeconds;
      local n = lib.samples(fire);
      local KL(nodeName) = lib.selectorLabels(c.kubeletSelector) { instance: nodeName + ':10250', [node]: nodeName };
      {
        name: "KubeletPLEGStuck when the kubelet's relist stops while plegscope's relists are healthy",
        interval: '10s',
        input_series: [
          S_('kubelet_pleg_last_seen_seconds', KL('worker-1'), '0+10x6 60x%d' % n),
          S_('kubelet_pleg_relist_duration_seconds_count', KL('worker-1'), '0+10x6 60x%d' % n),
          S_('pleg_healthy', L('10.0.0.1:9547', 'worker-1'), '1x%d' % (n + 6)),
          S_('kubelet_pleg_last_seen_seconds', KL('worker-2'), '0+10x6 60x%d' % n),
          S_('kubelet_pleg_relist_duration_seconds_count', KL('worker-2'), '0+10x6 60x%d' % n),
          S_('pleg_healthy', L('10.0.0.2:9547', 'worker-2'), '1x6 0x%d' % n),
          S_('kubelet_pleg_last_seen_seconds', KL('worker-3'), '0+10x%d' % (n + 6)),
          S_('kubelet_pleg_relist_duration_seconds_count', KL('worker-3'), '0+10x%d' % (n + 6)),
          S_('pleg_healthy', L('10.0.0.3:9547', 'worker-3'), '1x%d' % (n + 6)),
        ],
        alert_rule_test: [
          lib.silent(60 + K + c.kubeletStuckForSeconds - 10, 'KubeletPLEGStuck'),
          lib.firing(fire + 10, 'KubeletPLEGStuck', [{
            exp_labels: nodeOf('worker-1') { severity: 'critical' },
            exp_annotations: {
              summary: "The kubelet's own PLEG is stuck on worker-1 while the runtime answers",
              description: "The kubelet on node worker-1 has not relisted for %s while plegscope's relists against the same runtime are healthy: the kubelet is stuck, not the runtime. Dump the kubelet's goroutines and restart the kubelet; do not restart the runtime."
                           % hd(fire + 10 - 60),
              runbook_url: runbook('KubeletPLEGStuck'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ PLEGNotHealthy
      local fire = 60 + T + 1 + c.notHealthyForSeconds;
      local n = lib.samples(fire);
      local l = L('10.0.0.1:9547', 'worker-1');
      {
        name: 'PLEGNotHealthy at the relist threshold (%s)' % pd(T),
        interval: '10s',
        input_series: [
          // last relist started at t=60 and nothing since.
          S_('pleg_last_seen_seconds', l, '0+10x6 60x%d' % n),
          S_('pleg_diagnosis_cause', l { cause: 'runtime_hung' }, '0x6 0.95x%d' % n),
          S_('pleg_diagnosis_cause', l { cause: 'runtime_slow' }, '0x6 0.3x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGNotHealthy'),  // exactly the threshold: not yet (the kubelet uses >)
          lib.firing(fire, 'PLEGNotHealthy', [{
            exp_labels: nodeOf('worker-1') { severity: 'critical' },
            exp_annotations: {
              summary: 'PLEG is not healthy on worker-1',
              description: 'PLEG on node worker-1 was last seen active %s ago; threshold is %s. The kubelet marks the node NotReady with "PLEG is not healthy". %s'
                           % [hd(fire - 60), f.goDuration(T), causeText('runtime_hung', '0.95')],
              top_cause: 'runtime_hung',
              runbook_url: runbook('PLEGNotHealthy'),
            },
          }]),
        ],
      },

      local fire = T + c.notHealthyForSeconds;
      local l = L('10.0.0.2:9547', 'worker-2');
      {
        name: 'PLEGNotHealthy when PLEG has yet to be successful, not before the agent was up for the threshold',
        interval: '10s',
        input_series: [S_('pleg_last_seen_seconds', l, '0x%d' % lib.samples(fire + 60))],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGNotHealthy'),
          lib.firing(fire, 'PLEGNotHealthy', [{
            exp_labels: nodeOf('worker-2') { severity: 'critical' },
            exp_annotations: {
              summary: 'PLEG is not healthy on worker-2',
              description: 'PLEG on node worker-2 has yet to be successful after %s. The kubelet marks the node NotReady with "PLEG is not healthy". %s'
                           % [f.goDuration(T), noCause],
              top_cause: 'none',
              runbook_url: runbook('PLEGNotHealthy'),
            },
          }]),
        ],
      },

      {
        name: 'PLEGNotHealthy and PLEGAtRisk stay silent on a healthy node',
        interval: '10s',
        input_series: [S_('pleg_last_seen_seconds', L('10.0.0.3:9547', 'worker-3'), '0+10x60')],
        alert_rule_test: [lib.silent(600, 'PLEGNotHealthy'), lib.silent(600, 'PLEGAtRisk')],
      },

      // Evented PLEG (the agent's --evented-pleg true): the relist
      // runs every 300 s against a 600 s threshold, both exported. A last
      // seen that ages to 299 s on every cycle is healthy: neither alert may
      // fire, whatever _config's relistThresholdSeconds says.
      local l = L('10.0.0.7:9547', 'worker-evented');
      local cycles = 3;
      {
        name: 'PLEGNotHealthy and PLEGAtRisk stay silent on a healthy evented node (300 s relists, 600 s threshold)',
        interval: '10s',
        input_series: [
          S_('pleg_last_seen_seconds', l, std.join(' ', ['%dx29' % (300 * i + 10) for i in std.range(0, cycles - 1)])),
          S_('pleg_relist_threshold_seconds', l, '600x%d' % (30 * cycles)),
          S_('pleg_relist_period_seconds', l, '300x%d' % (30 * cycles)),
          S_('pleg_healthy', l, '1x%d' % (30 * cycles)),
        ],
        alert_rule_test: [lib.silent(t, 'PLEGNotHealthy') for t in [290, 590, 890]]
                         + [lib.silent(t, 'PLEGAtRisk') for t in [290, 590, 890]],
      },

      // The same agent stuck: the evented threshold still holds.
      local l = L('10.0.0.8:9547', 'worker-evented-stuck');
      {
        name: 'PLEGNotHealthy on an evented node past its exported 600 s threshold, not at 180 s',
        interval: '10s',
        input_series: [
          S_('pleg_last_seen_seconds', l, '10x80'),
          S_('pleg_relist_threshold_seconds', l, '600x80'),
          S_('pleg_relist_period_seconds', l, '300x80'),
        ],
        alert_rule_test: [
          lib.silent(10 + 600, 'PLEGNotHealthy'),
          { eval_time: lib.t(10 + 610), alertname: 'PLEGNotHealthy',
            exp_alerts: [{
              exp_labels: nodeOf('worker-evented-stuck') { severity: 'critical' },
              exp_annotations: {
                summary: 'PLEG is not healthy on worker-evented-stuck',
                description: 'PLEG on node worker-evented-stuck was last seen active %s ago; threshold is %s. The kubelet marks the node NotReady with "PLEG is not healthy". %s'
                             % [hd(610), hd(600), noCause],
                top_cause: 'none',
                runbook_url: runbook('PLEGNotHealthy'),
              },
            }] },
        ],
      },

      // ------------------------------------------------------------ PLEGAtRisk
      // ListContainers in flight since t=70; the first sample past the hang
      // threshold starts the alert's `for`.
      local hung = 70 + 10 * (std.floor(H / 10) + 1);
      local fire = hung + c.atRiskForSeconds;
      local n = lib.samples(fire + 60);
      local l = L('10.0.0.1:9547', 'worker-1');
      {
        name: 'PLEGAtRisk on a CRI call in flight past %s%s' % [pd(H), if fire <= 60 + T + c.notHealthyForSeconds then ', before PLEGNotHealthy' else ''],
        interval: '10s',
        input_series: [
          S_('pleg_last_seen_seconds', l, '0+10x6 60x%d' % n),
          S_('pleg_runtime_operation_oldest_in_flight_seconds', l { operation_type: 'list_containers' }, '0x6 0+10x%d' % n),
          S_('pleg_runtime_operation_oldest_in_flight_seconds', l { operation_type: 'version' }, '0x%d' % (n + 6)),
          S_('pleg_diagnosis_cause', l { cause: 'runtime_hung' }, '0x7 0.9x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGAtRisk'),
          lib.firing(fire, 'PLEGAtRisk', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning', reason: 'cri_call_hung' },
            exp_annotations: {
              summary: 'PLEG on worker-1 is at risk of becoming unhealthy (cri_call_hung)',
              description: 'PLEG on node worker-1 is heading for "PLEG is not healthy": a CRI call has been in flight for %s (hang threshold %s). %s'
                           % [hd(10 * std.floor(fire / 10) - 70), pd(H), causeText('runtime_hung', '0.90')],
              top_cause: 'runtime_hung',
              runbook_url: runbook('PLEGAtRisk'),
            },
          }]),
        ] + (
          // before PLEGNotHealthy, unless atRiskFor is as long as the threshold
          if fire <= 60 + T + c.notHealthyForSeconds then [lib.silent(fire, 'PLEGNotHealthy')] else []
        ),
      },

      // worker-a: every relist in (S/2, S] -> p99 0.995 S, just inside.
      // worker-b: every relist in (S, 2S] -> p99 1.99 S.
      local fire = 10 + c.atRiskForSeconds;  // rate needs two samples: true from t=10
      local n = lib.samples(fire);
      local bucket(name, le, values) = S_('pleg_relist_duration_seconds_bucket', L(name + ':9547', name, { le: le }), values);
      local les = [f.num(S / 2), f.num(S), f.num(2 * S), '+Inf'];
      {
        name: 'PLEGAtRisk on relist p99 over 5m above %s' % pd(S),
        interval: '10s',
        input_series: [
          bucket('worker-a', les[0], '0x%d' % n), bucket('worker-a', les[1], '0+1x%d' % n),
          bucket('worker-a', les[2], '0+1x%d' % n), bucket('worker-a', les[3], '0+1x%d' % n),
          bucket('worker-b', les[0], '0x%d' % n), bucket('worker-b', les[1], '0x%d' % n),
          bucket('worker-b', les[2], '0+1x%d' % n), bucket('worker-b', les[3], '0+1x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGAtRisk'),
          lib.firing(fire, 'PLEGAtRisk', [{
            exp_labels: nodeOf('worker-b') { severity: 'warning', reason: 'relist_p99_high' },
            exp_annotations: {
              summary: 'PLEG on worker-b is at risk of becoming unhealthy (relist_p99_high)',
              description: 'PLEG on node worker-b is heading for "PLEG is not healthy": relist p99 over 5m is %s (limit %s). %s'
                           % [hd(1.99 * S), pd(S), noCause],
              top_cause: 'none',
              runbook_url: runbook('PLEGAtRisk'),
            },
          }]),
        ],
      },

      // worker-c's p99 grows so that its forecast crosses the threshold at
      // t=9.5 (first evaluated at 10, on the series' second sample), early
      // enough that the p99 itself is still under the relist_p99_high arm's
      // limit when the alert fires, for any horizon past three times the
      // `for:`; worker-d grows at a fifth of that.
      local slope = (T - 0.25) / (9.5 + F);
      local fire = 10 + c.atRiskForSeconds;
      local n = lib.samples(fire);
      local q(name, perSample) = S_('node_quantile:pleg_relist_duration_seconds:histogram_quantile_rate5m',
                                    nodeOf(name) { quantile: '0.99' }, perSample);
      {
        name: 'PLEGAtRisk on a relist p99 trend that reaches %s within %s' % [pd(T), pd(F)],
        interval: '10s',
        input_series: [
          q('worker-c', '0.25+%sx%d' % [f.num(10 * slope), n]),
          q('worker-d', '0+%sx%d' % [f.num(2 * slope), n]),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGAtRisk'),
          lib.firing(fire, 'PLEGAtRisk', [{
            exp_labels: nodeOf('worker-c') { severity: 'warning', reason: 'forecast' },
            exp_annotations: {
              summary: 'PLEG on worker-c is at risk of becoming unhealthy (forecast)',
              description: 'PLEG on node worker-c is heading for "PLEG is not healthy": relist p99 is forecast to reach %s within %s (threshold %s). %s'
                           % [hd(0.25 + slope * (fire + F)), pd(F), pd(T), noCause],
              top_cause: 'none',
              runbook_url: runbook('PLEGAtRisk'),
            },
          }]),
        ],
      },

      // last relist at t=60; stale from the first second past S.
      local fire = 60 + S + 1 + c.atRiskForSeconds;
      local l = L('10.0.0.5:9547', 'worker-5');
      {
        name: 'PLEGAtRisk on a last-seen older than %s (failing relists, nothing in flight)' % pd(S),
        interval: '10s',
        input_series: [S_('pleg_last_seen_seconds', l, '0+10x6 60x%d' % lib.samples(fire))],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGAtRisk'),
          lib.firing(fire, 'PLEGAtRisk', [{
            exp_labels: nodeOf('worker-5') { severity: 'warning', reason: 'last_seen_stale' },
            exp_annotations: {
              summary: 'PLEG on worker-5 is at risk of becoming unhealthy (last_seen_stale)',
              description: 'PLEG on node worker-5 is heading for "PLEG is not healthy": the last successful relist was %s ago (threshold %s). %s'
                           % [hd(fire - 60), pd(T), noCause],
              top_cause: 'none',
              runbook_url: runbook('PLEGAtRisk'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ PLEGRelistDurationHigh
      // worker-a: relists in (D/2, D] -> p99 0.995 D, just inside.
      // worker-b: relists in (D, 3D] -> p99 2.98 D.
      local fire = 10 + c.relistDurationHighForSeconds;
      local n = lib.samples(fire);
      local bucket(name, le, values) = S_('pleg_relist_duration_seconds_bucket', L(name + ':9547', name, { le: le }), values);
      {
        name: 'PLEGRelistDurationHigh at p99 >= %s' % pd(D),
        interval: '10s',
        input_series: [
          bucket('worker-a', f.num(D / 2), '0x%d' % n), bucket('worker-a', f.num(D), '0+1x%d' % n),
          bucket('worker-a', '+Inf', '0+1x%d' % n),
          bucket('worker-b', f.num(D / 2), '0x%d' % n), bucket('worker-b', f.num(D), '0x%d' % n),
          bucket('worker-b', f.num(3 * D), '0+1x%d' % n), bucket('worker-b', '+Inf', '0+1x%d' % n),
          S_('pleg_diagnosis_cause', L('worker-b:9547', 'worker-b', { cause: 'too_many_containers' }), '0.7x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGRelistDurationHigh'),
          lib.firing(fire, 'PLEGRelistDurationHigh', [{
            exp_labels: nodeOf('worker-b') { severity: 'warning' },
            exp_annotations: {
              summary: 'PLEG relist on worker-b is slow',
              description: 'The 99th percentile of PLEG relist duration on node worker-b is %s over the last 5m (warning at %s, PLEG is declared unhealthy at %s). %s'
                           % [hd(2.98 * D), pd(D), pd(T), causeText('too_many_containers', '0.70')],
              top_cause: 'too_many_containers',
              runbook_url: runbook('PLEGRelistDurationHigh'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ PLEGDiscardingEvents
      // worker-1 discards on every relist from t=100; worker-2 discards once
      // (a burst the next sync picks up): only the sustained one fires.
      local W = c.discardingEventsForSeconds;
      local n = lib.samples(100 + W + 60);
      local discards = [[10 * k, std.max(0, k - 9)] for k in std.range(0, n)];
      {
        name: 'PLEGDiscardingEvents when discards go on for %s, not on one burst' % pd(W),
        interval: '10s',
        input_series: [
          S_('pleg_discard_events_total', L('10.0.0.1:9547', 'worker-1'), '0x9 1+1x%d' % (n - 9)),
        ] + (
          // One burst stays in the 5m window for 5 minutes: with a shorter
          // for: it fires too, so only a for: of 5m or more is tested on it.
          if W >= 300 then [S_('pleg_discard_events_total', L('10.0.0.2:9547', 'worker-2'), '0x9 1x%d' % (n - 9))] else []
        ) + [
          S_('pleg_diagnosis_cause', L('10.0.0.1:9547', 'worker-1', { cause: 'event_storm' }), '0.8x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(100 + W - 1, 'PLEGDiscardingEvents'),
          lib.firing(100 + W, 'PLEGDiscardingEvents', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning' },
            exp_annotations: {
              summary: 'PLEG on worker-1 is discarding events',
              description: 'PLEG on node worker-1 discarded %s events in the last 5m because its event channel was full (capacity %d). Pod changes are picked up late. %s'
                           % [f.humanize(lib.increase(discards, 100 + W, 300)), c.eventChannelCapacity, causeText('event_storm', '0.80')],
              top_cause: 'event_storm',
              runbook_url: runbook('PLEGDiscardingEvents'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ CRIOperationErrors
      // list_containers fails at twice the ratio, version at 0.8 of it (inside).
      local fire = 10 + c.criErrorsForSeconds;
      local n = lib.samples(fire);
      local l = L('10.0.0.1:9547', 'worker-1');
      {
        name: 'CRIOperationErrors above %s of an operation\'s calls' % f.humanizePercentage(R),
        interval: '10s',
        input_series: [
          S_('pleg_runtime_operations_total', l { operation_type: 'list_containers' }, '0+10x%d' % n),
          S_('pleg_runtime_operations_errors_total', l { operation_type: 'list_containers', code: 'DEADLINE_EXCEEDED' }, '0+%sx%d' % [f.num(20 * R), n]),
          S_('pleg_runtime_operations_total', l { operation_type: 'version' }, '0+10x%d' % n),
          S_('pleg_runtime_operations_errors_total', l { operation_type: 'version', code: 'UNKNOWN' }, '0+%sx%d' % [f.num(8 * R), n]),
          // a runtime without CRI list streaming answers every probe UNIMPLEMENTED: not an error.
          S_('pleg_runtime_operations_total', l { operation_type: 'stream_containers' }, '0+1x%d' % n),
          S_('pleg_runtime_operations_errors_total', l { operation_type: 'stream_containers', code: 'UNIMPLEMENTED' }, '0+1x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'CRIOperationErrors'),
          lib.firing(fire, 'CRIOperationErrors', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning', operation_type: 'list_containers' },
            exp_annotations: {
              summary: 'CRI list_containers calls are failing on worker-1',
              description: '%s of list_containers calls to the container runtime on node worker-1 failed over the last 5m (warning above %s). Error codes: DEADLINE_EXCEEDED '
                           % [f.humanizePercentage(2 * R), f.humanizePercentage(R)],
              top_cause: 'none',
              runbook_url: runbook('CRIOperationErrors'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ CRIRuntimeUnavailable
      // worker-1: last relist at t=60, relists fail with UNAVAILABLE from
      // t=60. worker-2 fails once and recovers: silent.
      local fire = 60 + U + 1 + c.runtimeUnavailableForSeconds;
      local n = lib.samples(fire);
      local errors = [[10 * k, k - 5] for k in std.range(5, n + 5)];
      {
        name: 'CRIRuntimeUnavailable when relists fail with UNAVAILABLE and none succeeded for %s' % pd(U),
        interval: '10s',
        input_series: [
          S_('pleg_last_seen_seconds', L('10.0.0.1:9547', 'worker-1'), '0+10x6 60x%d' % n),
          S_('pleg_relist_errors_total', L('10.0.0.1:9547', 'worker-1', { code: 'UNAVAILABLE' }), '_x5 0+1x%d' % n),
          S_('pleg_last_seen_seconds', L('10.0.0.2:9547', 'worker-2'), '0+10x%d' % (n + 6)),
          S_('pleg_relist_errors_total', L('10.0.0.2:9547', 'worker-2', { code: 'UNAVAILABLE' }), '0x6 1x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'CRIRuntimeUnavailable'),
          lib.firing(fire, 'CRIRuntimeUnavailable', [{
            exp_labels: nodeOf('worker-1') { severity: 'critical' },
            exp_annotations: {
              summary: 'The container runtime on worker-1 is unavailable',
              description: 'plegscope on node worker-1 could not reach the container runtime: %s relists failed with UNAVAILABLE in the last 2m and none succeeded for over %s. Pods on this node are not being started, stopped or observed.'
                           % [f.humanize(lib.increase(errors, fire, 120)), pd(U)],
              top_cause: 'none',
              runbook_url: runbook('CRIRuntimeUnavailable'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ CRIListNearMessageLimit
      local fire = c.listNearLimitForSeconds;
      local n = lib.samples(fire);
      local edge = std.floor(c.listMessageWarnRatio * c.listMessageLimitBytes);
      local l = L('10.0.0.1:9547', 'worker-1');
      {
        name: 'CRIListNearMessageLimit above %s of %sB' % [f.humanizePercentage(c.listMessageWarnRatio), f.humanize1024(c.listMessageLimitBytes)],
        interval: '10s',
        input_series: [
          S_('pleg_runtime_list_response_bytes', l { operation_type: 'list_containers' }, '%dx%d' % [edge + 1, n]),
          // exactly at the ratio: just inside.
          S_('pleg_runtime_list_response_bytes', l { operation_type: 'list_podsandbox' }, '%dx%d' % [edge, n]),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'CRIListNearMessageLimit'),
          lib.firing(fire, 'CRIListNearMessageLimit', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning', operation_type: 'list_containers' },
            exp_annotations: {
              summary: 'CRI list_containers answers on worker-1 near the %sB gRPC limit' % f.humanize1024(c.listMessageLimitBytes),
              description: 'The last unfiltered list_containers answer on node worker-1 was %sB, above %s of the %sB gRPC message limit. Past the limit the call fails with RESOURCE_EXHAUSTED and PLEG becomes unhealthy. Usually exited containers piling up.'
                           % [f.humanize1024(edge + 1), f.humanizePercentage(c.listMessageWarnRatio), f.humanize1024(c.listMessageLimitBytes)],
              top_cause: 'none',
              runbook_url: runbook('CRIListNearMessageLimit'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ PLEGNodeClockSkew
      // Relists every second; the agent's monotonic age is 1 s at every
      // scrape. worker-1's clock agrees with Prometheus, worker-2's is exactly
      // at the threshold ahead, worker-3's twice it ahead.
      local K = c.nodeClockSkewSeconds;
      local fire = 10 + c.nodeClockSkewForSeconds;
      local n = lib.samples(fire + 20);
      local lastSeen(offset) = '0 %d+10x%d' % [10 - 1 + offset, n];
      local age = '_ 1x%d' % n;
      {
        name: 'PLEGNodeClockSkew when the node clock is off by more than %s' % pd(K),
        interval: '10s',
        input_series: [
          S_('pleg_last_seen_seconds', L('10.0.0.1:9547', 'worker-1'), lastSeen(0)),
          S_('pleg_last_seen_age_seconds', L('10.0.0.1:9547', 'worker-1'), age),
          S_('pleg_last_seen_seconds', L('10.0.0.2:9547', 'worker-2'), lastSeen(K)),
          S_('pleg_last_seen_age_seconds', L('10.0.0.2:9547', 'worker-2'), age),
          S_('pleg_last_seen_seconds', L('10.0.0.3:9547', 'worker-3'), lastSeen(2 * K)),
          S_('pleg_last_seen_age_seconds', L('10.0.0.3:9547', 'worker-3'), age),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGNodeClockSkew'),
          lib.firing(fire, 'PLEGNodeClockSkew', [{
            exp_labels: nodeOf('worker-3') { severity: 'warning' },
            exp_annotations: {
              summary: 'The clock of worker-3 disagrees with Prometheus',
              description: "The wall clock of node worker-3 is %s off Prometheus' clock (warning above %s): the age of the last relist by time() - pleg_last_seen_seconds differs by that much from the agent's monotonic pleg_last_seen_age_seconds. PLEGNotHealthy, which reads the wall clock as the users asked, may fire or stay silent wrongly on this node; check NTP."
                           % [hd(2 * K), pd(K)],
              runbook_url: runbook('PLEGNodeClockSkew'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ PlegscopeDown
      // worker-1's target is down from t=70; worker-9 (Linux, amd64) joined
      // the cluster but no plegscope pod is scraped there. None is scraped on
      // worker-8 (excludedNodesSelector), worker-w (Windows), worker-s
      // (s390x), worker-f (EKS Fargate) or worker-vk (virtual-kubelet)
      // either: the DaemonSet's affinity keeps the agent off them, so they
      // never fire.
      local D2 = c.plegscopeDownForSeconds;
      local n = lib.samples(70 + D2);
      local ksm = lib.selectorLabels(c.kubeStateMetricsSelector) { instance: '10.0.9.9:8080' };
      local linux = { label_kubernetes_io_os: 'linux', label_kubernetes_io_arch: 'amd64' };
      local nodeLabels(name, labels) = S_('kube_node_labels', ksm + nodeOf(name) + labels, '1x%d' % (n + 6));
      local noTarget = {
        exp_labels: nodeOf('worker-9') { severity: 'warning', reason: 'no_target' },
        exp_annotations: {
          summary: 'plegscope is not being scraped on worker-9',
          description: 'Node worker-9 has no plegscope scrape target (is the DaemonSet pod scheduled there?). PLEG health on that node is not being observed.',
          runbook_url: runbook('PlegscopeDown'),
        },
      };
      {
        name: 'PlegscopeDown when the target is down or a node meant for the agent has none, not on nodes its affinity excludes',
        interval: '10s',
        input_series: [
          S_('up', L('10.0.0.1:9547', 'worker-1'), '1x6 0x%d' % n),
          S_('up', L('10.0.0.2:9547', 'worker-2'), '1x%d' % (n + 6)),
        ] + [nodeLabels(w, linux) for w in ['worker-1', 'worker-2', 'worker-9']]
        + (if c.excludedNodesSelector == '' then [] else [nodeLabels('worker-8', linux + lib.selectorLabels(c.excludedNodesSelector))])
        + [
          nodeLabels('worker-w', { label_kubernetes_io_os: 'windows', label_kubernetes_io_arch: 'amd64' }),
          nodeLabels('worker-s', { label_kubernetes_io_os: 'linux', label_kubernetes_io_arch: 's390x' }),
        ]
        + [nodeLabels('worker-nonagent-%d' % i, linux + lib.selectorLabels(c.nonAgentNodesSelectors[i]))
           for i in std.range(0, std.length(c.nonAgentNodesSelectors) - 1)],
        alert_rule_test: [
          lib.silent(D2 - 1, 'PlegscopeDown'),
          lib.firing(D2, 'PlegscopeDown', [noTarget]),
          lib.firing(70 + D2 - 1, 'PlegscopeDown', [noTarget]),
          lib.firing(70 + D2, 'PlegscopeDown', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning', reason: 'target_down' },
            exp_annotations: {
              summary: 'plegscope is not being scraped on worker-1',
              description: 'The plegscope target for node worker-1 is down. PLEG health on that node is not being observed.',
              runbook_url: runbook('PlegscopeDown'),
            },
          }, noTarget]),
        ],
      },

      // ------------------------------------------------------------ two clusters, same node names
      // Under a global ruler, a/worker-1 and b/worker-1 are two nodes. a's
      // PLEG hangs; b's is healthy and diagnoses a stronger (warning) cause
      // that must not become a's top cause. a's list_containers calls fail
      // at twice the ratio; b's succeed in such numbers that merged by node
      // name the ratio would be under it.
      local fire = 60 + T + 1 + c.notHealthyForSeconds;
      local n = lib.samples(fire + c.criErrorsForSeconds);
      local la = L('10.0.0.1:9547', 'worker-1', where('a'));
      local lb = L('10.0.0.1:9547', 'worker-1', where('b'));
      {
        name: 'Two clusters with the same node names: alerts, their top cause and their ratios stay per cluster',
        interval: '10s',
        input_series: [
          S_('pleg_last_seen_seconds', la, '0+10x6 60x%d' % n),
          S_('pleg_diagnosis_cause', la { cause: 'runtime_hung' }, '0.95x%d' % (n + 6)),
          S_('pleg_last_seen_seconds', lb, '0+10x%d' % (n + 6)),
          S_('pleg_diagnosis_cause', lb { cause: 'runtime_slow' }, '0.99x%d' % (n + 6)),
          S_('pleg_runtime_operations_total', la { operation_type: 'list_containers' }, '0+10x%d' % (n + 6)),
          S_('pleg_runtime_operations_errors_total', la { operation_type: 'list_containers', code: 'DEADLINE_EXCEEDED' }, '0+%sx%d' % [f.num(20 * R), n + 6]),
          S_('pleg_runtime_operations_total', lb { operation_type: 'list_containers' }, '0+1000x%d' % (n + 6)),
          S_('pleg_runtime_operations_errors_total', lb { operation_type: 'list_containers', code: 'DEADLINE_EXCEEDED' }, '0x%d' % (n + 6)),
        ],
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGNotHealthy'),
          lib.firing(fire, 'PLEGNotHealthy', [{
            exp_labels: nodeOf('worker-1') + where('a') { severity: 'critical' },
            exp_annotations: {
              summary: 'PLEG is not healthy on worker-1',
              description: 'PLEG on node worker-1 was last seen active %s ago; threshold is %s. The kubelet marks the node NotReady with "PLEG is not healthy". %s'
                           % [hd(fire - 60), f.goDuration(T), causeText('runtime_hung', '0.95')],
              top_cause: 'runtime_hung',
              runbook_url: runbook('PLEGNotHealthy'),
            },
          }]),
          lib.firing(10 + c.criErrorsForSeconds, 'CRIOperationErrors', [{
            exp_labels: nodeOf('worker-1') + where('a') { severity: 'warning', operation_type: 'list_containers' },
            exp_annotations: {
              summary: 'CRI list_containers calls are failing on worker-1',
              description: '%s of list_containers calls to the container runtime on node worker-1 failed over the last 5m (warning above %s). Error codes: DEADLINE_EXCEEDED '
                           % [f.humanizePercentage(2 * R), f.humanizePercentage(R)],
              top_cause: 'runtime_hung',
              runbook_url: runbook('CRIOperationErrors'),
            },
          }]),
        ],
      },

      // ------------------------------------------------------------ PLEGFleetWideCause
      // M = fleetWideCauseMinNodes, X = fleetWideCauseShare. Clusters a and
      // b have N = M / X nodes of the same names. From t=60, a has M + 1 nodes
      // with runtime_hung (above X), b has M (exactly X: inside), and a
      // further node of each diagnoses it below the minimum confidence;
      // cluster c has M - 1 nodes, all with it (too few to be a fleet).
      local M = c.fleetWideCauseMinNodes;
      local X = c.fleetWideCauseShare;
      local conf = c.fleetWideCauseMinConfidence;
      local N = std.ceil(M / X);
      local fire = 60 + c.fleetWideCauseForSeconds;
      local n = lib.samples(fire + 60);
      local name(i) = 'worker-%d' % i;
      local at(cluster, i) = L('10.0.%d.%d:9547' % [std.length(cluster), i], name(i), where(cluster));
      local hung(cluster, i, value) = S_('pleg_diagnosis_cause', at(cluster, i) { cause: 'runtime_hung' }, '0x5 %sx%d' % [f.num(value), n]);
      local cluster(id, nodes, affected) =
        [S_('up', at(id, i), '1x%d' % (n + 6)) for i in std.range(1, nodes)]
        + [hung(id, i, 0.9) for i in std.range(1, affected)]
        + (if affected < nodes then [hung(id, affected + 1, conf)] else []);
      {
        name: 'PLEGFleetWideCause on more than %s of a cluster\'s nodes and at least %d of them' % [f.humanizePercentage(X), M],
        interval: '10s',
        input_series: cluster('a', N, M + 1) + cluster('b', N, M) + cluster('c', M - 1, M - 1),
        alert_rule_test: [
          lib.silent(fire - 1, 'PLEGFleetWideCause'),
          lib.firing(fire, 'PLEGFleetWideCause', [{
            exp_labels: nodeOf(name(i)) + where('a') { severity: 'critical', cause: 'runtime_hung' },
            exp_annotations: {
              summary: 'PLEG cause runtime_hung on %s of the nodes of cluster a' % f.humanizePercentage((M + 1) / N),
              description: 'The diagnosed cause runtime_hung (confidence above %s) is on %s of the nodes of cluster a, node %s among them (fleet-wide above %s and at least %d nodes). Suspect a runtime or kernel regression (a rollout of containerd, runc, the kernel or the node image); do not replace nodes. Pages of the nodes with this cause are inhibited while it fires.'
                           % [f.num(conf), f.humanizePercentage((M + 1) / N), name(i), f.humanizePercentage(X), M],
              runbook_url: runbook('PLEGFleetWideCause'),
            },
          } for i in std.range(1, M + 1)]),
        ],
      },
    ],
  },
}
