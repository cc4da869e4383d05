// plegscope's recording rules and alerts. The node label comes from the
// scrape (PodMonitor relabelling), so every rule reads its metric directly.
local f = import '../lib/format.libsonnet';
local scope = import '../lib/scope.libsonnet';

{
  local c = $._config,
  local sel = c.plegscopeSelector,
  local node = c.nodeLabel,
  local T = c.relistThresholdSeconds,
  local atRisk = std.floor(T / c.atRiskFraction),
  // The threshold in force, as the agent exports it (180 s generic, 600 s
  // while evented PLEG drives the relist), so no setting of the agent makes
  // its own alerts page falsely; `_config` T where an older agent does not
  // export it.
  local threshold = '(pleg_relist_threshold_seconds{%s} or pleg_last_seen_seconds{%s} * 0 + %d)' % [sel, sel, T],
  // A relist is stale past a share of the threshold beyond its own period:
  // evented PLEG relists every 300 s by design.
  local period = '(pleg_relist_period_seconds{%s} or pleg_last_seen_seconds{%s} * 0)' % [sel, sel],
  local by = scope.by(c),
  // The kubelet's own view of the same node, where Prometheus has it: its
  // PLEG relisted within its threshold, or kube-state-metrics shows the node
  // Ready (the kubelet sets NotReady on "PLEG is not healthy" and on "container
  // runtime is down"). While either holds, the agent's alarm is about the
  // agent, not the node: the critical alerts stay silent and the agent's
  // own warnings (PlegscopeCannotReachRuntime) say why. Where neither series
  // exists the critical alerts fire on the agent's evidence alone.
  local kubeletSaysHealthy = |||
    (
      time() - max by (%(by)s) (kubelet_pleg_last_seen_seconds{%(ksel)s} > 0) < %(kT)d
      or on (%(by)s)
      max by (%(by)s) (kube_node_status_condition{%(ksm)s, condition="Ready", status="true"}) == 1
    )
  ||| % { by: by, ksel: c.kubeletSelector, kT: c.kubeletRelistThresholdSeconds, ksm: c.kubeStateMetricsSelector },
  local v = { sel: sel, by: by, T: T, threshold: threshold, period: period, kubeletSaysHealthy: kubeletSaysHealthy, blind: scope.agentBlind(c) },
  local forOf(seconds) = if seconds > 0 then { 'for': f.promDuration(seconds) } else {},
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local topCauseQuery = '"topk(1, node_cause:pleg_diagnosis_cause:max{%s} > 0)" %s' % [scope.templateMatchers(c), scope.templateArgs(c)],
  local topCause = '{{ with printf %s | query }}{{ range . }}{{ .Labels.cause }} (confidence {{ printf "%%.2f" .Value }}){{ end }}{{ else }}none reported{{ end }}' % topCauseQuery,
  local topCauseId = '{{ with printf %s | query }}{{ range . }}{{ .Labels.cause }}{{ end }}{{ else }}none{{ end }}' % topCauseQuery,
  local n = '{{ $labels.%s }}' % node,
  local thresholdInForce = '{{ with printf "max(pleg_relist_threshold_seconds{%s})" %s | query }}{{ . | first | value | humanizeDuration }}{{ else }}%s{{ end }}' % [scope.templateMatchers(c), scope.templateArgs(c), f.goDuration(T)],

  // Recording rules keep only what is non-zero: a quantile of an idle
  // operation (NaN), a rate of errors that did not happen, a cause at
  // confidence 0 cost a series per node each and say nothing. The per-node
  // state (healthy, seconds since last seen) is kept whatever its value.
  local quantile(metric, by, q) = {
    record: 'node%s_quantile:%s:histogram_quantile_rate5m' % [if by == '' then '' else '_' + by, metric],
    expr: 'histogram_quantile(%s, sum by (%s, %sle) (rate(%s_bucket{%s}[5m]))) > 0\n'
          % [q, scope.by(c), if by == '' then '' else by + ', ', metric, sel],
    labels: { quantile: q },
  },

  // A fleet's Prometheus pays each recording rule on every node at every
  // evaluation, so the default records what the alerts, the fleet dashboard
  // and a global view read: the relist p99 (the forecast, PLEGAtRisk,
  // PLEGRelistDurationHigh, the fleet panels) and the per-node rates and
  // state. The other quantiles (relist p90/p50 and interval p99, each
  // operation's p99/p50) are for whoever turns detailedRecords on. Rates over
  // 5 minutes move little in 15 s: the group runs every
  // recordingIntervalSeconds.
  local detailed =
    if c.detailedRecords then
      [quantile('pleg_relist_duration_seconds', '', q) for q in ['0.9', '0.5']]
      + [quantile('pleg_relist_interval_seconds', '', '0.99')]
      + [quantile('pleg_runtime_operations_duration_seconds', 'operation_type', q) for q in ['0.99', '0.5']]
    else [],
  // Alerts that read a recorded series instead of the raw histogram or
  // counters: recording groups are not ordered against alerting groups, so
  // they see it up to one recording interval late, well inside their `for:`.
  local relistP99 = 'node_quantile:pleg_relist_duration_seconds:histogram_quantile_rate5m{quantile="0.99"}',

  prometheusRules+:: {
    groups+: [{
      name: 'plegscope.records',
      interval: f.promDuration(c.recordingIntervalSeconds),
      rules:
        [quantile('pleg_relist_duration_seconds', '', '0.99')]
        + detailed
        + [
          {
            record: 'node_operation_type:pleg_runtime_operations:rate5m',
            expr: 'sum by (%(by)s, operation_type) (rate(pleg_runtime_operations_total{%(sel)s}[5m])) > 0\n' % v,
          },
          {
            record: 'node_operation_type_code:pleg_runtime_operations_errors:rate5m',
            expr: 'sum by (%(by)s, operation_type, code) (rate(pleg_runtime_operations_errors_total{%(sel)s}[5m])) > 0\n' % v,
          },
          {
            record: 'node:pleg_discard_events:rate5m',
            expr: 'sum by (%(by)s) (rate(pleg_discard_events_total{%(sel)s}[5m])) > 0\n' % v,
          },
          {
            record: 'node_event_type:pleg_events:rate5m',
            expr: 'sum by (%(by)s, event_type) (rate(pleg_events_total{%(sel)s}[5m])) > 0\n' % v,
          },
          {
            record: 'node:pleg_seconds_since_last_seen:max',
            expr: 'time() - max by (%(by)s) (pleg_last_seen_seconds{%(sel)s})\n' % v,
          },
          {
            record: 'node:pleg_healthy:min',
            expr: 'min by (%(by)s) (pleg_healthy{%(sel)s})\n' % v,
          },
          {
            record: 'node:pleg_runtime_operation_oldest_in_flight_seconds:max',
            expr: 'max by (%(by)s) (pleg_runtime_operation_oldest_in_flight_seconds{%(sel)s}) > 0\n' % v,
          },
          {
            record: 'node_cause:pleg_diagnosis_cause:max',
            expr: 'max by (%(by)s, cause) (pleg_diagnosis_cause{%(sel)s}) > 0\n' % v,
          },
        ],
    }],
  },

  prometheusAlerts+:: {
    groups+: [{
      name: 'plegscope.alerts',
      rules: [
        // The kubelet's Healthy() rule. A last-seen of 0 is "pleg has yet to
        // be successful": that arm waits until the agent has been scraped for
        // the whole threshold, so an agent restart does not page.
        {
          alert: 'PLEGNotHealthy',
          expr: |||
            max by (%(by)s) (
              (
                time() - pleg_last_seen_seconds{%(sel)s} > %(threshold)s
                and pleg_last_seen_seconds{%(sel)s} > 0
              )
              or
              (
                max_over_time(pleg_last_seen_seconds{%(sel)s}[%(range)s]) == 0
                and present_over_time(pleg_last_seen_seconds{%(sel)s}[1m] offset %(range)s)
              )
            )
            unless on (%(by)s)
            %(kubeletSaysHealthy)s
            unless on (%(by)s)
            %(blind)s
          ||| % (v { range: f.promDuration(T) }),
          labels: { severity: 'critical' },
          annotations: {
            summary: 'PLEG is not healthy on %s' % n,
            description: 'PLEG on node %s {{ if eq $value 0.0 }}has yet to be successful after %s{{ else }}was last seen active {{ $value | humanizeDuration }} ago; threshold is %s{{ end }}. The kubelet marks the node NotReady with "PLEG is not healthy". Top diagnosed cause: %s.'
                         % [n, f.goDuration(T), thresholdInForce, topCause],
            top_cause: topCauseId,
            runbook_url: runbook('PLEGNotHealthy'),
          },
        } + forOf(c.notHealthyForSeconds),

        // One alert per node, minutes before PLEGNotHealthy; `reason` names
        // the first arm that matched.
        {
          alert: 'PLEGAtRisk',
          expr: |||
            label_replace(max by (%(by)s) (pleg_runtime_operation_oldest_in_flight_seconds{%(sel)s}) > %(hang)s, "reason", "cri_call_hung", "", "")
            or on (%(by)s)
            label_replace(max by (%(by)s) (%(relistP99)s) > %(atRisk)d, "reason", "relist_p99_high", "", "")
            or on (%(by)s)
            label_replace(max by (%(by)s) (predict_linear(node_quantile:pleg_relist_duration_seconds:histogram_quantile_rate5m{quantile="0.99"}[15m], %(horizon)d)) > %(T)d, "reason", "forecast", "", "")
            or on (%(by)s)
            label_replace(max by (%(by)s) (time() - (pleg_last_seen_seconds{%(sel)s} > 0) > %(threshold)s / %(fraction)s + %(period)s), "reason", "last_seen_stale", "", "")
          ||| % (v { relistP99: relistP99, hang: f.num(c.hangThresholdSeconds), atRisk: atRisk, horizon: c.forecastHorizonSeconds, fraction: f.num(c.atRiskFraction) }),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'PLEG on %s is at risk of becoming unhealthy ({{ $labels.reason }})' % n,
            description: 'PLEG on node %s is heading for "PLEG is not healthy": {{ if eq $labels.reason "cri_call_hung" }}a CRI call has been in flight for {{ $value | humanizeDuration }} (hang threshold %s){{ else if eq $labels.reason "relist_p99_high" }}relist p99 over 5m is {{ $value | humanizeDuration }} (limit %s){{ else if eq $labels.reason "forecast" }}relist p99 is forecast to reach {{ $value | humanizeDuration }} within %s (threshold %s){{ else }}the last successful relist was {{ $value | humanizeDuration }} ago (threshold %s){{ end }}. Top diagnosed cause: %s.'
                         % [n, f.promDuration(c.hangThresholdSeconds), f.promDuration(atRisk), f.promDuration(c.forecastHorizonSeconds),
                            f.promDuration(T), f.promDuration(T), topCause],
            top_cause: topCauseId,
            runbook_url: runbook('PLEGAtRisk'),
          },
        } + forOf(c.atRiskForSeconds),

        // The kubernetes-mixin's KubeletPlegDurationHigh, on buckets that
        // reach 600 s instead of stopping at 10 s.
        {
          alert: 'PLEGRelistDurationHigh',
          expr: 'max by (%(by)s) (%(relistP99)s) >= %(high)s\n'
                % (v { relistP99: relistP99, high: f.num(c.relistDurationHighSeconds) }),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'PLEG relist on %s is slow' % n,
            description: 'The 99th percentile of PLEG relist duration on node %s is {{ $value | humanizeDuration }} over the last 5m (warning at %s, PLEG is declared unhealthy at %s). Top diagnosed cause: %s.'
                         % [n, f.promDuration(c.relistDurationHighSeconds), f.promDuration(T), topCause],
            top_cause: topCauseId,
            runbook_url: runbook('PLEGRelistDurationHigh'),
          },
        } + forOf(c.relistDurationHighForSeconds),

        // Events dropped on a full channel: the kubelet misses pod changes
        // until the next periodic sync.
        {
          alert: 'PLEGDiscardingEvents',
          expr: 'sum by (%(by)s) (increase(pleg_discard_events_total{%(sel)s}[5m])) > 0\n' % v,
          labels: { severity: 'warning' },
          // One burst (a mass rollout) is picked up by the next sync; only
          // a channel that keeps overflowing is worth a ticket.
          annotations: {
            summary: 'PLEG on %s is discarding events' % n,
            description: 'PLEG on node %s discarded {{ $value | humanize }} events in the last 5m because its event channel was full (capacity %d). Pod changes are picked up late. Top diagnosed cause: %s.'
                         % [n, c.eventChannelCapacity, topCause],
            top_cause: topCauseId,
            runbook_url: runbook('PLEGDiscardingEvents'),
          },
        } + forOf(c.discardingEventsForSeconds),

        // UNIMPLEMENTED is not a failure: it is how a runtime without CRI
        // list streaming or GetContainerEvents answers the capability probes.
        {
          alert: 'CRIOperationErrors',
          expr: |||
            sum by (%(by)s, operation_type) (node_operation_type_code:pleg_runtime_operations_errors:rate5m{code!="UNIMPLEMENTED"})
            / on (%(by)s, operation_type) node_operation_type:pleg_runtime_operations:rate5m
            > %(ratio)s
          ||| % (v { ratio: f.num(c.criErrorRatio) }),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'CRI {{ $labels.operation_type }} calls are failing on %s' % n,
            description: '{{ $value | humanizePercentage }} of {{ $labels.operation_type }} calls to the container runtime on node %s failed over the last 5m (warning above %s). Error codes: {{ range printf "node_operation_type_code:pleg_runtime_operations_errors:rate5m{%s,operation_type=%%q} > 0" %s $labels.operation_type | query }}{{ .Labels.code }} {{ end }}'
                         % [n, f.humanizePercentage(c.criErrorRatio), scope.templateMatchers(c), scope.templateArgs(c)],
            top_cause: topCauseId,
            runbook_url: runbook('CRIOperationErrors'),
          },
        } + forOf(c.criErrorsForSeconds),

        // Relists keep failing with UNAVAILABLE and none succeeded lately:
        // the kubelet reports "container runtime is down" here.
        {
          alert: 'CRIRuntimeUnavailable',
          expr: |||
            sum by (%(by)s) (increase(pleg_relist_errors_total{%(sel)s, code="UNAVAILABLE"}[2m])) > 0
            and on (%(by)s)
            time() - max by (%(by)s) (pleg_last_seen_seconds{%(sel)s}) > %(down)d
            unless on (%(by)s)
            %(kubeletSaysHealthy)s
            unless on (%(by)s)
            %(blind)s
          ||| % (v { down: c.runtimeUnavailableSeconds }),
          labels: { severity: 'critical' },
          annotations: {
            summary: 'The container runtime on %s is unavailable' % n,
            description: 'plegscope on node %s could not reach the container runtime: {{ $value | humanize }} relists failed with UNAVAILABLE in the last 2m and none succeeded for over %s. Pods on this node are not being started, stopped or observed.'
                         % [n, f.promDuration(c.runtimeUnavailableSeconds)],
            top_cause: topCauseId,
            runbook_url: runbook('CRIRuntimeUnavailable'),
          },
        } + forOf(c.runtimeUnavailableForSeconds),

        // gRPC refuses answers above its message limit (RESOURCE_EXHAUSTED);
        // the list call then fails on every relist.
        {
          alert: 'CRIListNearMessageLimit',
          expr: 'max by (%(by)s, operation_type) (pleg_runtime_list_response_bytes{%(sel)s}) > %(ratio)s * %(limit)d\n'
                % (v { ratio: f.num(c.listMessageWarnRatio), limit: c.listMessageLimitBytes }),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'CRI {{ $labels.operation_type }} answers on %s near the %sB gRPC limit' % [n, f.humanize1024(c.listMessageLimitBytes)],
            description: 'The last unfiltered {{ $labels.operation_type }} answer on node %s was {{ $value | humanize1024 }}B, above %s of the %sB gRPC message limit. Past the limit the call fails with RESOURCE_EXHAUSTED and PLEG becomes unhealthy. Usually exited containers piling up.'
                         % [n, f.humanizePercentage(c.listMessageWarnRatio), f.humanize1024(c.listMessageLimitBytes)],
            top_cause: topCauseId,
            runbook_url: runbook('CRIListNearMessageLimit'),
          },
        } + forOf(c.listNearLimitForSeconds),

        // The kubelet's own relist stopped (its last-seen stale,
        // or its relist count flat) while plegscope's relists on the same
        // node's runtime are healthy: the kubelet is stuck, not the runtime.
        // For clusters where the agent cannot read the kubelet itself; needs
        // the kubelet's and plegscope's series to carry the same node label.
        // The value: seconds since the kubelet last relisted (at least the
        // window when only its count shows it).
        {
          alert: 'KubeletPLEGStuck',
          expr: |||
            (
              time() - max by (%(by)s) (kubelet_pleg_last_seen_seconds{%(ksel)s} > 0) > %(stuck)d
              or on (%(by)s)
              (max by (%(by)s) (changes(kubelet_pleg_relist_duration_seconds_count{%(ksel)s}[%(window)s])) == 0) + %(stuck)d
            )
            and on (%(by)s)
            max by (%(by)s) (pleg_healthy{%(sel)s}) == 1
            unless on (%(by)s)
            %(blind)s
          ||| % (v { stuck: c.kubeletStuckSeconds, window: f.promDuration(c.kubeletStuckSeconds), ksel: c.kubeletSelector }),
          labels: { severity: 'critical' },
          annotations: {
            summary: "The kubelet's own PLEG is stuck on %s while the runtime answers" % n,
            description: "The kubelet on node %s has not relisted for {{ $value | humanizeDuration }} while plegscope's relists against the same runtime are healthy: the kubelet is stuck, not the runtime. Dump the kubelet's goroutines and restart the kubelet; do not restart the runtime."
                         % n,
            runbook_url: runbook('KubeletPLEGStuck'),
          },
        } + forOf(c.kubeletStuckForSeconds),

        // PLEGNotHealthy reads the node's wall clock against Prometheus'
        // (time() - pleg_last_seen_seconds): a stepped node clock fires or
        // hides it. The agent's monotonic age is immune; at the scrape's own
        // timestamp the two ages are equal unless the clocks disagree, and
        // their difference is the node clock's offset (positive: ahead).
        {
          alert: 'PLEGNodeClockSkew',
          expr: |||
            max by (%(by)s) (
              abs(
                pleg_last_seen_age_seconds{%(sel)s}
                - (timestamp(pleg_last_seen_age_seconds{%(sel)s}) - pleg_last_seen_seconds{%(sel)s})
              ) > %(skew)s
              and pleg_last_seen_seconds{%(sel)s} > 0
            )
          ||| % (v { skew: f.num(c.nodeClockSkewSeconds) }),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'The clock of %s disagrees with Prometheus' % n,
            description: 'The wall clock of node %s is {{ $value | humanizeDuration }} off Prometheus\' clock (warning above %s): the age of the last relist by time() - pleg_last_seen_seconds differs by that much from the agent\'s monotonic pleg_last_seen_age_seconds. PLEGNotHealthy, which reads the wall clock as the users asked, may fire or stay silent wrongly on this node; check NTP.'
                         % [n, f.promDuration(c.nodeClockSkewSeconds)],
            runbook_url: runbook('PLEGNodeClockSkew'),
          },
        } + forOf(c.nodeClockSkewForSeconds),

        // The fleet veto: one cause on a large share of a cluster's nodes is
        // a runtime, kernel or image regression, and replacing nodes one
        // after another does not fix it. One alert per affected node (its
        // value: the cause's share of the cluster), so the example
        // Alertmanager config inhibits exactly those nodes' pages (equal on
        // the cluster and node labels) and groups the alerts into one page
        // per cluster and cause; nodes with another cause still page.
        {
          alert: 'PLEGFleetWideCause',
          // A blind agent's cause is about the agent: one bad rollout of the
          // agent (every agent denied the socket) is no runtime regression.
          expr: |||
            (
              count by (%(clusterBy)s, cause) (%(cause)s > %(conf)s)
              / on (%(clusterBy)s) group_left ()
              count by (%(clusterBy)s) (max by (%(by)s) (up{%(sel)s}))
              > %(share)s
              and on (%(clusterBy)s, cause)
              count by (%(clusterBy)s, cause) (%(cause)s > %(conf)s) >= %(minNodes)d
            )
            * on (%(clusterBy)s, cause) group_right ()
            (%(cause)s > bool %(conf)s == 1)
          ||| % (v {
            cause: '(node_cause:pleg_diagnosis_cause:max unless on (%s) %s)' % [by, scope.agentBlind(c)],
            clusterBy: std.join(', ', [c.clusterLabel] + c.additionalAggregationLabels),
            conf: f.num(c.fleetWideCauseMinConfidence),
            share: f.num(c.fleetWideCauseShare),
            minNodes: c.fleetWideCauseMinNodes,
          }),
          labels: { severity: 'critical' },
          annotations: {
            summary: 'PLEG cause {{ $labels.cause }} on {{ $value | humanizePercentage }} of the nodes of cluster {{ $labels.%s }}' % c.clusterLabel,
            description: 'The diagnosed cause {{ $labels.cause }} (confidence above %s) is on {{ $value | humanizePercentage }} of the nodes of cluster {{ $labels.%s }}, node %s among them (fleet-wide above %s and at least %d nodes). Suspect a runtime or kernel regression (a rollout of containerd, runc, the kernel or the node image); do not replace nodes. Pages of the nodes with this cause are inhibited while it fires.'
                         % [f.num(c.fleetWideCauseMinConfidence), c.clusterLabel, n, f.humanizePercentage(c.fleetWideCauseShare), c.fleetWideCauseMinNodes],
            runbook_url: runbook('PLEGFleetWideCause'),
          },
        } + forOf(c.fleetWideCauseForSeconds),

        // The agent is down on a node, or a node has no agent target at all
        // (needs kube-state-metrics' kube_node_info), unless it is excluded.
        {
          alert: 'PlegscopeDown',
          expr: |||
            label_replace(max by (%(by)s) (up{%(sel)s}) == 0, "reason", "target_down", "", "")
            or on (%(by)s)
            label_replace(count by (%(by)s) (kube_node_labels{%(agentNodes)s}) unless on (%(by)s) count by (%(by)s) (up{%(sel)s})%(excluded)s, "reason", "no_target", "", "")
          ||| % (v {
            agentNodes: std.join(', ', std.prune([c.kubeStateMetricsSelector, c.agentNodesSelector])),
            excluded: std.join('', [
              ' unless on (%s) count by (%s) (kube_node_labels{%s, %s})' % [by, by, c.kubeStateMetricsSelector, e]
              for e in std.prune([c.excludedNodesSelector] + c.nonAgentNodesSelectors)
            ]),
          }),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'plegscope is not being scraped on %s' % n,
            description: '{{ if eq $labels.reason "no_target" }}Node %s has no plegscope scrape target (is the DaemonSet pod scheduled there?){{ else }}The plegscope target for node %s is down{{ end }}. PLEG health on that node is not being observed.'
                         % [n, n],
            runbook_url: runbook('PlegscopeDown'),
          },
        } + forOf(c.plegscopeDownForSeconds),

        // The agent cannot reach the runtime's socket, by the reason its own
        // connect() and the first answers gave. A warning, not a page, and
        // the only alert of a blind agent (an SELinux node denies container_t
        // the socket; k3s and RKE2 keep it elsewhere; a wrong endpoint
        // answers as no CRI runtime): every critical alert is guarded by
        // scope.agentBlind. Where the runtime is really down (connection
        // refused, or its socket removed after it answered), the kubelet
        // agrees and CRIRuntimeUnavailable pages; the example Alertmanager
        // config then inhibits this warning.
        {
          alert: 'PlegscopeCannotReachRuntime',
          expr: 'max by (%(by)s, reason) (pleg_runtime_unreachable{%(sel)s}) == 1\n' % v,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'plegscope on %s cannot reach the container runtime ({{ $labels.reason }})' % n,
            description: 'plegscope on node %s cannot connect to the container runtime\'s socket: {{ if eq $labels.reason "permission_denied" }}permission denied. On an SELinux-enforcing node the agent\'s container_t is denied the runtime socket: install the selinux component (spc_t); else check the socket mount and the agent\'s group{{ else if eq $labels.reason "no_such_socket" }}no socket at the configured path. k3s and RKE2 keep containerd at /run/k3s/containerd/containerd.sock: set --container-runtime-endpoint and mount that directory{{ else if eq $labels.reason "not_a_socket" }}the configured path is not a socket (a hostPath to a missing file makes a directory): mount the runtime\'s socket directory and set --container-runtime-endpoint to the kubelet\'s{{ else if eq $labels.reason "not_cri" }}what answers at the configured path is not a CRI runtime (no gRPC answer, or UNIMPLEMENTED to Version): set --container-runtime-endpoint to the socket the kubelet\'s --container-runtime-endpoint names{{ else if eq $labels.reason "connection_refused" }}the socket exists but nothing listens: the runtime is stopped (CRIRuntimeUnavailable pages where the kubelet agrees){{ else if eq $labels.reason "socket_removed" }}the socket of a runtime that answered before is gone: the runtime was stopped (CRIRuntimeUnavailable pages where the kubelet agrees){{ else }}{{ $labels.reason }}{{ end }}. PLEG health on this node is not being observed by the agent.'
                         % n,
            runbook_url: runbook('PlegscopeCannotReachRuntime'),
          },
        } + forOf(c.cannotReachRuntimeForSeconds),

        // The kubelet reader has failed for a long time: the diagnosis loses
        // the kubelet-side evidence (kubelet_internal, the kubelet's PLEG
        // model). On kubeadm and Cluster API nodes the kubelet serves a
        // self-signed certificate by default, which the agent rightly refuses.
        {
          alert: 'PlegscopeKubeletUnreadable',
          expr: 'max by (%(by)s) (pleg_kubelet_up{%(sel)s}) == 0\n' % v,
          labels: { severity: 'warning' },
          annotations: {
            summary: 'plegscope on %s cannot read the kubelet' % n,
            description: "plegscope on node %s has failed to read the kubelet's /metrics for %s; the diagnosis lacks the kubelet's side. On kubeadm and Cluster API nodes the kubelet's serving certificate is self-signed: set serverTLSBootstrap: true in the KubeletConfiguration (kubeadm: the kubelet ConfigMap; Cluster API: KubeadmConfigTemplate kubeletExtraArgs rotate-server-certificates=true) and approve the kubelet-serving CSRs (or run kubelet-csr-approver); or set the DaemonSet's kubelet TLS mode to insecure (--kubelet-insecure-skip-tls-verify) where that is acceptable. /diagnose names the exact error."
                         % [n, f.promDuration(c.kubeletUnreadableForSeconds)],
            runbook_url: runbook('PlegscopeKubeletUnreadable'),
          },
        } + forOf(c.kubeletUnreadableForSeconds),

        // The node condition outlives its writer: after an uninstall, on a
        // node the agent was excluded from, or while it crash-loops, a True
        // plegscope.io/PLEGUnhealthy stays on the Node, and a remediator or
        // the Node Readiness Controller keeps acting on it. kube-state-metrics
        // exports every condition type of a Node.
        {
          alert: 'PlegscopeConditionStale',
          expr: |||
            max by (%(by)s) (kube_node_status_condition{%(ksm)s, condition=~"plegscope.io/(PLEGUnhealthy|NodeRepairAdvised)", status="true"}) == 1
            unless on (%(by)s)
            max by (%(by)s) (up{%(sel)s}) == 1
          ||| % (v { ksm: c.kubeStateMetricsSelector }),
          labels: { severity: 'warning' },
          annotations: {
            summary: 'A plegscope node condition on %s is True with no agent to clear it' % n,
            description: "Node %s carries a plegscope condition (plegscope.io/PLEGUnhealthy or plegscope.io/NodeRepairAdvised) True but no plegscope agent is up there to keep it current: the agent was uninstalled, kept off the node, or is crash-looping. Remediators matching the condition act on a stale verdict. Clear it (README, \"Uninstalling\") or bring the agent back."
                         % n,
            runbook_url: runbook('PlegscopeConditionStale'),
          },
        } + forOf(c.conditionStaleForSeconds),
      ],
    }],
  },
}
