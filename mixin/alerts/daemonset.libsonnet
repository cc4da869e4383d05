// The agent's DaemonSet exists and has no pod, from kube-state-metrics'
// default series alone (kube_daemonset_status_*, labels namespace and
// daemonset; no --metric-labels-allowlist needed). A platform that refuses
// the pods (OpenShift's SCC admission, GKE's quota for system-node-critical,
// a Pod Security or policy-engine denial) leaves the DaemonSet with pods
// desired and none created; a bad image or a crash leaves pods created and
// none ready. Either way no agent scrapes, so none of plegscope's own alerts
// can fire, and PlegscopeDown's no_target arm needs node labels that
// kube-state-metrics exports only when told to. Keyed by the DaemonSet, not
// a node: it is the install that is wrong. A warning: plegscope is blind on
// every node, the nodes may be fine.
local f = import '../lib/format.libsonnet';

{
  _config+:: {
    // The plegscope DaemonSets by name, whatever an overlay's namePrefix or
    // nameSuffix (plegscope, team-plegscope, plegscope-crio).
    plegscopeDaemonSetSelector: 'daemonset=~"(.+-)?plegscope(-.+)?"',
    daemonSetNoPodForSeconds: 600,
  },

  local c = $._config,
  local by = std.join(', ', [c.clusterLabel] + c.additionalAggregationLabels + ['namespace', 'daemonset']),
  local sel = std.join(', ', std.prune([c.kubeStateMetricsSelector, c.plegscopeDaemonSetSelector])),
  local m(metric) = 'max by (%s) (%s{%s})' % [by, metric, sel],
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),

  prometheusAlerts+:: {
    groups+: [{
      name: 'plegscope-daemonset',
      rules: [
        {
          alert: 'PlegscopeDaemonSetSchedulesNoPod',
          // The value is the number of nodes the DaemonSet wants a pod on.
          expr: |||
            label_replace(
              %(desired)s > 0
              unless on (%(by)s) (%(current)s > 0),
              "reason", "no_pod_created", "", "")
            or on (%(by)s)
            label_replace(
              %(desired)s > 0
              and on (%(by)s) (%(current)s > 0)
              unless on (%(by)s) (%(ready)s > 0),
              "reason", "no_pod_ready", "", "")
          ||| % {
            by: by,
            desired: m('kube_daemonset_status_desired_number_scheduled'),
            current: m('kube_daemonset_status_current_number_scheduled'),
            ready: m('kube_daemonset_status_number_ready'),
          },
          'for': f.promDuration(c.daemonSetNoPodForSeconds),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'The plegscope DaemonSet {{ $labels.namespace }}/{{ $labels.daemonset }} runs no agent',
            description: 'The DaemonSet {{ $labels.namespace }}/{{ $labels.daemonset }} wants a pod on {{ $value }} nodes and has {{ if eq $labels.reason "no_pod_created" }}created none: the API server refuses its pods (OpenShift: no SCC allows them, use deploy/components/openshift; GKE: no ResourceQuota for system-node-critical, use deploy/components/gke; or a Pod Security or policy-engine denial). `kubectl describe daemonset` shows the refusal in its events{{ else }}none ready (image pull, crash loop, a hostPath missing on the nodes){{ end }}. plegscope watches no node of this DaemonSet, so none of its other alerts can fire.',
            runbook_url: runbook('PlegscopeDaemonSetSchedulesNoPod'),
          },
        },
      ],
    }],
  },
}
