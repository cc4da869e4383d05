// The mixin's knobs. Override any of them:
//   (import 'mixin.libsonnet') + { _config+:: { relistThresholdSeconds: 60 } }
// Thresholds are seconds; rules and their promtool tests render them.
{
  _config+:: {
    // Series scraped from the plegscope agents. Tests expect equality
    // matchers (they become labels of the test series).
    plegscopeSelector: 'job="plegscope"',
    // The kubelet's own metrics (kube-prometheus' kubelet ServiceMonitor).
    kubeletSelector: 'job="kubelet", metrics_path="/metrics"',
    kubeStateMetricsSelector: 'job="kube-state-metrics"',
    // Nodes that run no agent on purpose: matchers on kube-state-metrics'
    // kube_node_labels (node labels become label_<name>, and only those
    // kube-state-metrics is told to export: --metric-labels-allowlist=
    // nodes=[plegscope.io/exclude]). PlegscopeDown's no_target arm skips
    // them. The default matches the DaemonSet's nodeAffinity; '' turns it off.
    excludedNodesSelector: 'label_plegscope_io_exclude="true"',
    // Set by the scrape: the PodMonitor (and the runbook's scrape config)
    // relabels __meta_kubernetes_pod_node_name to it.
    nodeLabel: 'node',

    // The agent's --relist-threshold (the kubelet's 3m).
    relistThresholdSeconds: 180,
    // The agent's --hang-threshold.
    hangThresholdSeconds: 10,
    // The kubelet's own threshold: fixed in the kubelet (genericPlegRelistThreshold).
    kubeletRelistThresholdSeconds: 180,
    // The at-risk arms fire at a third of the threshold.
    atRiskFraction: 3,
    // How far ahead the relist p99 trend is projected.
    forecastHorizonSeconds: 300,
    // PLEGRelistDurationHigh (the kubernetes-mixin's KubeletPlegDurationHigh).
    relistDurationHighSeconds: 10,
    // The agent's --event-channel-capacity (only in descriptions).
    eventChannelCapacity: 1000,
    // CRIOperationErrors: share of failing calls per operation.
    criErrorRatio: 0.05,
    // CRIRuntimeUnavailable: no successful relist for this long.
    runtimeUnavailableSeconds: 30,
    // PLEGNodeClockSkew: the node's wall clock and Prometheus' disagree by
    // more than this (the wall-clock age of the last relist against the
    // agent's monotonic one).
    nodeClockSkewSeconds: 60,
    // gRPC's default maximum message size, and the share that warns.
    listMessageLimitBytes: 16777216,
    listMessageWarnRatio: 0.75,

    // `for:` of each alert, seconds (0: fires at once).
    notHealthyForSeconds: 0,
    atRiskForSeconds: 60,
    relistDurationHighForSeconds: 300,
    criErrorsForSeconds: 300,
    runtimeUnavailableForSeconds: 60,
    listNearLimitForSeconds: 300,
    plegscopeDownForSeconds: 300,
    nodeClockSkewForSeconds: 300,

    // The release the rules ship with (the image tag in deploy/): alerts
    // link to the runbook of that release, not to a branch that moves on.
    version: '0.1.0',
    runbookURL: 'https://github.com/plegscope/plegscope/blob/v%s/docs/runbook.md' % self.version,

    // Grafana
    dashboardTags: ['plegscope', 'kubernetes', 'pleg'],
    dashboardRefresh: '30s',
    dashboardTimeFrom: 'now-3h',
  },
}
