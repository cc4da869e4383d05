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
    // Nodes the DaemonSet is meant for, as its nodeAffinity says (Linux on
    // amd64 or arm64): PlegscopeDown's no_target arm pages only for these.
    // kube-state-metrics exports the labels when told to:
    // --metric-labels-allowlist=nodes=[kubernetes.io/os,kubernetes.io/arch,
    // plegscope.io/exclude,eks.amazonaws.com/compute-type,type]. Without
    // them the arm is silent (never a page for a node it cannot place).
    agentNodesSelector: 'label_kubernetes_io_os="linux", label_kubernetes_io_arch=~"amd64|arm64"',
    // Nodes where the agent cannot run, also excluded by the DaemonSet's
    // affinity: EKS Fargate and virtual-kubelet nodes.
    nonAgentNodesSelectors: ['label_eks_amazonaws_com_compute_type="fargate"', 'label_type="virtual-kubelet"'],
    // Set by the scrape: the PodMonitor (and the runbook's scrape config)
    // relabels __meta_kubernetes_pod_node_name to it.
    nodeLabel: 'node',
    // Multi-cluster, as kubernetes-mixin does it: every aggregation, join
    // and annotation query keeps the cluster label, so a global ruler
    // (Thanos, Mimir, a federating Prometheus) never merges same-named nodes
    // of different clusters. Where series carry no cluster label, `by
    // (cluster, node)` is `by (node)`. Set by the cluster's Prometheus
    // (external_labels) or by the remote-write/sidecar in front of it.
    clusterLabel: 'cluster',
    // Further labels every aggregation keeps (kube-prometheus-stack's
    // additionalAggregationLabels), e.g. ['region'].
    additionalAggregationLabels: [],
    // Dashboards get a `cluster` variable and every query is scoped by it.
    // Off: no cluster variable, and the dashboards work where series carry
    // no cluster label.
    showMultiCluster: false,

    // The recording group's interval, and whether it records every quantile
    // (relist p90/p50, relist interval p99, each CRI operation's p99/p50)
    // beside the relist p99 and the per-node rates. Each recorded quantile
    // reads every node's buckets at every evaluation (docs/benchmarks.md, "The
    // fleet side at scale").
    recordingIntervalSeconds: 60,
    detailedRecords: false,

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
    // Event-lag panels: the line above which changes are seen late (a few
    // relist periods; only in dashboards, no alert).
    eventLagHighSeconds: 5,
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

    // KubeletPLEGStuck: the kubelet's last-seen older than this,
    // or its relist count flat this long, while plegscope relists fine.
    kubeletStuckSeconds: 120,
    kubeletStuckForSeconds: 60,

    // PLEGFleetWideCause, the fleet veto: the same cause (confidence above
    // fleetWideCauseMinConfidence) on more than this share of a cluster's
    // nodes, and on at least fleetWideCauseMinNodes of them, is a runtime or
    // kernel regression, not a bad node: it inhibits those nodes' pages.
    // Remediators' guards (NodeHealthCheck minHealthy, MachineHealthCheck
    // maxUnhealthy) should stop at the same share.
    fleetWideCauseShare: 0.2,
    fleetWideCauseMinNodes: 3,
    fleetWideCauseMinConfidence: 0.5,

    // pleg_runtime_unreachable reasons that are the agent's own problem,
    // never the node's (cri/runtime_socket.h agent_side): a node whose agent
    // says one of them pages nothing critical. connection_refused and
    // socket_removed (a runtime that answered, then stopped) stay the node's.
    agentSideUnreachableReasons: ['permission_denied', 'no_such_socket', 'not_a_socket', 'not_cri'],

    // `for:` of each alert, seconds (0: fires at once).
    notHealthyForSeconds: 0,
    atRiskForSeconds: 60,
    relistDurationHighForSeconds: 300,
    criErrorsForSeconds: 300,
    runtimeUnavailableForSeconds: 60,
    listNearLimitForSeconds: 300,
    plegscopeDownForSeconds: 300,
    nodeClockSkewForSeconds: 300,
    fleetWideCauseForSeconds: 120,
    discardingEventsForSeconds: 600,
    cannotReachRuntimeForSeconds: 300,
    // The kubelet reader failing this long (PlegscopeKubeletUnreadable).
    kubeletUnreadableForSeconds: 1800,
    // PlegscopeConditionStale: the condition True with no agent up.
    conditionStaleForSeconds: 600,

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
