// PLEG verdicts on the kubelet's own metrics, for clusters without plegscope
// (pkg/kubelet/metrics/metrics.go). What these metrics cannot show, compared
// with plegscope's:
// - kubelet_pleg_relist_duration_seconds' buckets stop at 10 s: a 3-minute
//   relist reads "p99 = 10 s";
// - no in-flight metric: a hung CRI call is invisible until last-seen goes stale;
// - kubelet_runtime_operations_errors_total has no code, and there is no
//   list answer size: no analogue of CRIListNearMessageLimit;
// - with the EventedPLEG feature gate the kubelet sets
//   kubelet_pleg_last_seen_seconds to "now" on every health check;
// - kubelet_pleg_discard_events is named with or without `_total`
//   depending on the Kubernetes version; both are accepted.
// The node label: prometheus-operator sets `node` on endpoints backed by a Node.
local f = import '../lib/format.libsonnet';
local scope = import '../lib/scope.libsonnet';

{
  local c = $._config,
  local sel = c.kubeletSelector,
  local node = c.nodeLabel,
  local T = c.kubeletRelistThresholdSeconds,
  local atRisk = std.floor(T / c.atRiskFraction),
  local v = { sel: sel, by: scope.by(c), T: T, atRisk: atRisk },
  local forOf(seconds) = if seconds > 0 then { 'for': f.promDuration(seconds) } else {},
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local n = '{{ $labels.%s }}' % node,
  local listOps = 'list_podsandbox|list_containers|podsandbox_status|container_status',

  prometheusRules+:: {
    groups+: [{
      name: 'kubelet-pleg.records',
      rules: [
        {
          record: 'node_quantile:kubelet_pleg_relist_duration_seconds:histogram_quantile_rate5m',
          expr: 'histogram_quantile(%s, sum by (%s, le) (rate(kubelet_pleg_relist_duration_seconds_bucket{%s}[5m]))) > 0\n' % [q, scope.by(c), sel],
          labels: { quantile: q },
        }
        for q in ['0.99', '0.5']
      ] + [
        {
          record: 'node_operation_type_quantile:kubelet_runtime_operations_duration_seconds:histogram_quantile_rate5m',
          expr: 'histogram_quantile(0.99, sum by (%(by)s, operation_type, le) (rate(kubelet_runtime_operations_duration_seconds_bucket{%(sel)s}[5m]))) > 0\n' % v,
          labels: { quantile: '0.99' },
        },
        {
          record: 'node:kubelet_pleg_seconds_since_last_seen:max',
          expr: 'time() - max by (%(by)s) (kubelet_pleg_last_seen_seconds{%(sel)s})\n' % v,
        },
      ],
    }],
  },

  prometheusAlerts+:: {
    groups+: [{
      name: 'kubelet-pleg.alerts',
      rules: [
        {
          alert: 'KubeletPLEGNotHealthy',
          expr: 'time() - max by (%(by)s) (kubelet_pleg_last_seen_seconds{%(sel)s} > 0) > %(T)d\n' % v,
          labels: { severity: 'critical' },
          annotations: {
            summary: "The kubelet's PLEG is not healthy on %s" % n,
            description: 'The kubelet on node %s last saw PLEG active {{ $value | humanizeDuration }} ago; threshold is %s. The node is NotReady with "PLEG is not healthy". Install plegscope for the cause.'
                         % [n, f.goDuration(T)],
            runbook_url: runbook('KubeletPLEGNotHealthy'),
          },
        } + forOf(c.notHealthyForSeconds),

        // Arms, first match wins per node: last_seen_stale, cri_list_slow
        // (these buckets reach 745 s, unlike the relist's), forecast.
        {
          alert: 'KubeletPLEGAtRisk',
          expr: |||
            label_replace(time() - max by (%(by)s) (kubelet_pleg_last_seen_seconds{%(sel)s} > 0) > %(atRisk)d, "reason", "last_seen_stale", "", "")
            or on (%(by)s)
            label_replace(max by (%(by)s) (histogram_quantile(0.99, sum by (%(by)s, operation_type, le) (rate(kubelet_runtime_operations_duration_seconds_bucket{%(sel)s, operation_type=~"%(ops)s"}[5m])))) > %(atRisk)d, "reason", "cri_list_slow", "", "")
            or on (%(by)s)
            label_replace(max by (%(by)s) (predict_linear(node_operation_type_quantile:kubelet_runtime_operations_duration_seconds:histogram_quantile_rate5m{quantile="0.99", operation_type=~"%(ops)s"}[15m], %(horizon)d)) > %(T)d, "reason", "forecast", "", "")
          ||| % (v { ops: listOps, horizon: c.forecastHorizonSeconds }),
          labels: { severity: 'warning' },
          annotations: {
            summary: "The kubelet's PLEG on %s is at risk of becoming unhealthy ({{ $labels.reason }})" % n,
            description: 'The kubelet\'s PLEG on node %s is heading for "PLEG is not healthy": {{ if eq $labels.reason "last_seen_stale" }}the last successful relist was {{ $value | humanizeDuration }} ago (threshold %s){{ else if eq $labels.reason "cri_list_slow" }}a CRI list/status call p99 over 5m is {{ $value | humanizeDuration }} (limit %s){{ else }}a CRI list/status call p99 is forecast to reach {{ $value | humanizeDuration }} within %s (threshold %s){{ end }}.'
                         % [n, f.promDuration(T), f.promDuration(atRisk), f.promDuration(c.forecastHorizonSeconds), f.promDuration(T)],
            runbook_url: runbook('KubeletPLEGAtRisk'),
          },
        } + forOf(c.atRiskForSeconds),

        // kubernetes-mixin's KubeletPlegDurationHigh. 10 s is the top finite
        // bucket, so the value reads "10s" for anything slower.
        {
          alert: 'KubeletPLEGRelistDurationHigh',
          expr: 'histogram_quantile(0.99, sum by (%(by)s, le) (rate(kubelet_pleg_relist_duration_seconds_bucket{%(sel)s}[5m]))) >= %(high)s\n'
                % (v { high: f.num(c.relistDurationHighSeconds) }),
          labels: { severity: 'warning' },
          annotations: {
            summary: "The kubelet's PLEG relist on %s is slow" % n,
            description: "The 99th percentile of the kubelet's PLEG relist duration on node %s is {{ $value | humanizeDuration }} over the last 5m (warning at %s; the kubelet's buckets stop at 10s, so the real value may be much higher)."
                         % [n, f.promDuration(c.relistDurationHighSeconds)],
            runbook_url: runbook('KubeletPLEGRelistDurationHigh'),
          },
        } + forOf(c.relistDurationHighForSeconds),

        {
          alert: 'KubeletPLEGDiscardingEvents',
          expr: 'sum by (%(by)s) (increase({__name__=~"kubelet_pleg_discard_events(_total)?", %(sel)s}[5m])) > 0\n' % v,
          labels: { severity: 'warning' },
          annotations: {
            summary: "The kubelet's PLEG on %s is discarding events" % n,
            description: "The kubelet's PLEG on node %s discarded {{ $value | humanize }} events in the last 5m because its event channel was full (capacity 1000)." % n,
            runbook_url: runbook('KubeletPLEGDiscardingEvents'),
          },
        },

        // The kubelet counts every call in kubelet_runtime_operations_total
        // and failed ones again in kubelet_runtime_operations_errors_total.
        {
          alert: 'KubeletCRIOperationErrors',
          expr: |||
            sum by (%(by)s, operation_type) (rate(kubelet_runtime_operations_errors_total{%(sel)s}[5m]))
            / sum by (%(by)s, operation_type) (rate(kubelet_runtime_operations_total{%(sel)s}[5m]))
            > %(ratio)s
          ||| % (v { ratio: f.num(c.criErrorRatio) }),
          labels: { severity: 'warning' },
          annotations: {
            summary: "The kubelet's CRI {{ $labels.operation_type }} calls are failing on %s" % n,
            description: "{{ $value | humanizePercentage }} of the kubelet's {{ $labels.operation_type }} calls to the container runtime on node %s failed over the last 5m (warning above %s)."
                         % [n, f.humanizePercentage(c.criErrorRatio)],
            runbook_url: runbook('KubeletCRIOperationErrors'),
          },
        } + forOf(c.criErrorsForSeconds),

        // Without error codes, "unavailable" is read as: nearly every
        // Status/Version call (the kubelet's runtime liveness probe) fails,
        // and PLEG has not relisted lately.
        {
          alert: 'KubeletCRIRuntimeUnavailable',
          expr: |||
            sum by (%(by)s) (rate(kubelet_runtime_operations_errors_total{%(sel)s, operation_type=~"status|version"}[2m]))
            / sum by (%(by)s) (rate(kubelet_runtime_operations_total{%(sel)s, operation_type=~"status|version"}[2m]))
            >= 0.9
            and on (%(by)s)
            time() - max by (%(by)s) (kubelet_pleg_last_seen_seconds{%(sel)s}) > %(down)d
          ||| % (v { down: c.runtimeUnavailableSeconds }),
          labels: { severity: 'critical' },
          annotations: {
            summary: 'The container runtime on %s is unavailable to the kubelet' % n,
            description: "{{ $value | humanizePercentage }} of the kubelet's Status/Version calls to the container runtime on node %s failed over the last 2m and PLEG has not relisted for over %s."
                         % [n, f.promDuration(c.runtimeUnavailableSeconds)],
            runbook_url: runbook('KubeletCRIRuntimeUnavailable'),
          },
        } + forOf(c.runtimeUnavailableForSeconds),
      ],
    }],
  },
}
