// promtool tests of alerts/daemonset.libsonnet, in plegscope_test.yml:
// kube-state-metrics' default series only (namespace and daemonset labels).
// plegscope/plegscope: 3 nodes wanted, no pod created (refused at
// admission); obs/team-plegscope-crio: 2 pods created, none ready;
// plegscope/plegscope-healthy: 3 of 3 ready; kube-system/kube-proxy: no pod
// created, not plegscope's.
local f = import '../lib/format.libsonnet';
local lib = import 'lib.libsonnet';

{
  local c = $._config,
  local F = c.daemonSetNoPodForSeconds,
  local n = lib.samples(F + 20),
  local ksm = lib.selectorLabels(c.kubeStateMetricsSelector) { instance: '10.0.9.9:8080' },
  local S(metric, ns, ds, v) = { series: lib.series(metric, ksm { namespace: ns, daemonset: ds }), values: '%dx%d' % [v, n] },
  local ds(ns, name, desired, current, ready) = [
    S('kube_daemonset_status_desired_number_scheduled', ns, name, desired),
    S('kube_daemonset_status_current_number_scheduled', ns, name, current),
    S('kube_daemonset_status_number_ready', ns, name, ready),
  ],
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local description(ns, name, wanted, created) =
    'The DaemonSet %s/%s wants a pod on %d nodes and has %s. plegscope watches no node of this DaemonSet, so none of its other alerts can fire.'
    % [ns, name, wanted,
       if created then 'none ready (image pull, crash loop, a hostPath missing on the nodes)'
       else 'created none: the API server refuses its pods (OpenShift: no SCC allows them, use deploy/components/openshift; GKE: no ResourceQuota for system-node-critical, use deploy/components/gke; or a Pod Security or policy-engine denial). `kubectl describe daemonset` shows the refusal in its events'],

  plegscopeTests+:: {
    tests+: [
      {
        name: 'PlegscopeDaemonSetSchedulesNoPod after %s, from kube-state-metrics defaults' % f.promDuration(F),
        interval: '10s',
        input_series: ds('plegscope', 'plegscope', 3, 0, 0) + ds('obs', 'team-plegscope-crio', 2, 2, 0)
                      + ds('plegscope', 'plegscope-healthy', 3, 3, 3) + ds('kube-system', 'kube-proxy', 3, 0, 0),
        alert_rule_test: [
          lib.silent(F - 10, 'PlegscopeDaemonSetSchedulesNoPod'),
          lib.firing(F, 'PlegscopeDaemonSetSchedulesNoPod', [
            {
              exp_labels: { severity: 'warning', namespace: 'plegscope', daemonset: 'plegscope', reason: 'no_pod_created' },
              exp_annotations: {
                summary: 'The plegscope DaemonSet plegscope/plegscope runs no agent',
                description: description('plegscope', 'plegscope', 3, false),
                runbook_url: runbook('PlegscopeDaemonSetSchedulesNoPod'),
              },
            },
            {
              exp_labels: { severity: 'warning', namespace: 'obs', daemonset: 'team-plegscope-crio', reason: 'no_pod_ready' },
              exp_annotations: {
                summary: 'The plegscope DaemonSet obs/team-plegscope-crio runs no agent',
                description: description('obs', 'team-plegscope-crio', 2, true),
                runbook_url: runbook('PlegscopeDaemonSetSchedulesNoPod'),
              },
            },
          ]),
        ],
      },
    ],
  },
}
