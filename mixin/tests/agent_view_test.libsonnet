// promtool tests of the alerts that tell the node's trouble from the
// agent's: the critical alerts stay silent while the kubelet's own view
// contradicts them ("agent blind, kubelet healthy"), the agent's own
// warnings say why, and a stale node condition is caught. Added to
// plegscopeTests (render.jsonnet), with the same conventions as
// plegscope_test.libsonnet: 10 s samples, promtool's clock from 0.
local f = import '../lib/format.libsonnet';
local lib = import 'lib.libsonnet';

{
  local c = $._config,
  local node = c.nodeLabel,
  local T = c.relistThresholdSeconds,
  local U = c.runtimeUnavailableSeconds,
  local base = lib.selectorLabels(c.plegscopeSelector),
  local L(instance, nodeName, extra={}) = base + { instance: instance, [node]: nodeName } + extra,
  local S_(metric, labels, values) = { series: lib.series(metric, labels), values: values },
  local runbook(alert) = c.runbookURL + '#' + std.asciiLower(alert),
  local nodeOf(name) = { [node]: name },
  local hd = f.humanizeDuration,
  local pd = f.promDuration,
  local noCause = 'Top diagnosed cause: none reported.',
  // "Agent blind, kubelet healthy": an agent whose relists never succeed
  // and whose connect() to the socket fails for `reason`, until blindEnd;
  // the kubelet's and kube-state-metrics' view of the same node.
  local blindEnd = 60 + T + U + c.runtimeUnavailableForSeconds + c.cannotReachRuntimeForSeconds + 60,
  local blindN = lib.samples(blindEnd),
  local ksmL = lib.selectorLabels(c.kubeStateMetricsSelector) { instance: '10.0.9.9:8080' },
  local KL(nodeName) = lib.selectorLabels(c.kubeletSelector) { instance: nodeName + ':10250', [node]: nodeName },
  local ready(nodeName, v) = S_('kube_node_status_condition', ksmL + nodeOf(nodeName) { condition: 'Ready', status: 'true' }, v),
  local blind(i, name, reason) = [
    S_('pleg_last_seen_seconds', L('10.0.0.%d:9547' % i, name), '0x%d' % blindN),
    S_('pleg_relist_errors_total', L('10.0.0.%d:9547' % i, name, { code: 'UNAVAILABLE' }), '0+1x%d' % blindN),
    S_('pleg_runtime_unreachable', L('10.0.0.%d:9547' % i, name, { reason: reason }), '1x%d' % blindN),
  ],

  local cannotReachAt(name, reason, text) = {
    exp_labels: nodeOf(name) { severity: 'warning', reason: reason },
    exp_annotations: {
      summary: 'plegscope on %s cannot reach the container runtime (%s)' % [name, reason],
      description: "plegscope on node %s cannot connect to the container runtime's socket: %s. PLEG health on this node is not being observed by the agent." % [name, text],
      runbook_url: runbook('PlegscopeCannotReachRuntime'),
    },
  },

  plegscopeTests+:: {
    tests+: [
      // ------------------------------------------------------------ agent blind, kubelet healthy
      // The agent cannot reach the runtime (SELinux denies it the socket on
      // worker-1; the socket is elsewhere on worker-2): its relists fail with
      // UNAVAILABLE and have never succeeded. worker-1's kubelet relists and
      // its node is Ready; worker-2 has only kube-state-metrics' Ready. No
      // critical alert may fire for either: the agent's warning says why.
      // worker-3's runtime is really down: the kubelet's PLEG is stale and
      // the node NotReady, so the critical alerts page there.
      local end = blindEnd;
      local n = lib.samples(end);
      local cannotReach(name, reason, text) = {
        exp_labels: nodeOf(name) { severity: 'warning', reason: reason },
        exp_annotations: {
          summary: 'plegscope on %s cannot reach the container runtime (%s)' % [name, reason],
          description: "plegscope on node %s cannot connect to the container runtime's socket: %s. PLEG health on this node is not being observed by the agent." % [name, text],
          runbook_url: runbook('PlegscopeCannotReachRuntime'),
        },
      };
      {
        name: 'Agent blind, kubelet healthy: no critical alert, PlegscopeCannotReachRuntime with the reason; critical where the kubelet agrees',
        interval: '10s',
        input_series: blind(1, 'worker-1', 'permission_denied') + blind(2, 'worker-2', 'no_such_socket') + [
          S_('kubelet_pleg_last_seen_seconds', KL('worker-1'), '0+10x%d' % n),
          ready('worker-1', '1x%d' % n),
          ready('worker-2', '1x%d' % n),
          // worker-3: the runtime stopped at t=60 (its socket refuses).
          S_('pleg_last_seen_seconds', L('10.0.0.3:9547', 'worker-3'), '0+10x6 60x%d' % n),
          S_('pleg_relist_errors_total', L('10.0.0.3:9547', 'worker-3', { code: 'UNAVAILABLE' }), '0x6 0+1x%d' % n),
          S_('pleg_runtime_unreachable', L('10.0.0.3:9547', 'worker-3', { reason: 'connection_refused' }), '_x6 1x%d' % n),
          S_('kubelet_pleg_last_seen_seconds', KL('worker-3'), '0+10x6 60x%d' % n),
          ready('worker-3', '1x9 0x%d' % n),
        ],
        alert_rule_test: [
          lib.silent(c.cannotReachRuntimeForSeconds - 1, 'PlegscopeCannotReachRuntime'),
          {
            eval_time: lib.t(end),
            alertname: 'PLEGNotHealthy',
            exp_alerts: [{
              exp_labels: nodeOf('worker-3') { severity: 'critical' },
              exp_annotations: {
                summary: 'PLEG is not healthy on worker-3',
                description: 'PLEG on node worker-3 was last seen active %s ago; threshold is %s. The kubelet marks the node NotReady with "PLEG is not healthy". %s'
                             % [hd(end - 60), f.goDuration(T), noCause],
                top_cause: 'none',
                runbook_url: runbook('PLEGNotHealthy'),
              },
            }],
          },
          {
            eval_time: lib.t(end),
            alertname: 'PlegscopeCannotReachRuntime',
            exp_alerts: [
              cannotReach('worker-1', 'permission_denied', "permission denied. On an SELinux-enforcing node the agent's container_t is denied the runtime socket: install the selinux component (spc_t); else check the socket mount and the agent's group"),
              cannotReach('worker-2', 'no_such_socket', 'no socket at the configured path. k3s and RKE2 keep containerd at /run/k3s/containerd/containerd.sock: set --container-runtime-endpoint and mount that directory'),
              cannotReach('worker-3', 'connection_refused', 'the socket exists but nothing listens: the runtime is stopped (CRIRuntimeUnavailable pages where the kubelet agrees)'),
            ],
          },
        ],
      },
      // The same blind agents: CRIRuntimeUnavailable, the other critical
      // alert an unreachable runtime raises, only for worker-3.
      local end = blindEnd;
      local n = lib.samples(end);
      {
        name: 'Agent blind, kubelet healthy: CRIRuntimeUnavailable only where the kubelet agrees',
        interval: '10s',
        input_series: blind(1, 'worker-1', 'permission_denied') + [
          S_('kubelet_pleg_last_seen_seconds', KL('worker-1'), '0+10x%d' % n),
          ready('worker-1', '1x%d' % n),
          S_('pleg_last_seen_seconds', L('10.0.0.3:9547', 'worker-3'), '0+10x6 60x%d' % n),
          S_('pleg_relist_errors_total', L('10.0.0.3:9547', 'worker-3', { code: 'UNAVAILABLE' }), '0x6 0+1x%d' % n),
          S_('kubelet_pleg_last_seen_seconds', KL('worker-3'), '0+10x6 60x%d' % n),
          ready('worker-3', '1x9 0x%d' % n),
        ],
        alert_rule_test: [{
          eval_time: lib.t(end),
          alertname: 'CRIRuntimeUnavailable',
          exp_alerts: [{
            exp_labels: nodeOf('worker-3') { severity: 'critical' },
            exp_annotations: {
              summary: 'The container runtime on worker-3 is unavailable',
              description: 'plegscope on node worker-3 could not reach the container runtime: %s relists failed with UNAVAILABLE in the last 2m and none succeeded for over %s. Pods on this node are not being started, stopped or observed.'
                           % [f.humanize(lib.increase([[10 * k, std.max(0, k - 6)] for k in std.range(0, n)], end, 120)), pd(U)],
              top_cause: 'none',
              runbook_url: runbook('CRIRuntimeUnavailable'),
            },
          }],
        }],
      },

      // ------------------------------------------------------------ agent blind, no kubelet view
      // Every way an agent can be blind, on four nodes of one cluster, with
      // everything such an agent exports (tests/ecosystem/test_blind_agent.py
      // captures the same from the real binary): relists never succeed, the
      // CRI Status age grows from the agent's start, no runtime condition
      // (never answered), runtime_unavailable at a confidence an older agent
      // might give it. No kubelet or kube-state-metrics series: the guard
      // must not rest on the kubelet's view. Nothing critical fires, the
      // fleet veto included; PlegscopeCannotReachRuntime says why on each.
      local end = blindEnd;
      local n = lib.samples(end);
      local ways = [['permission_denied', "permission denied. On an SELinux-enforcing node the agent's container_t is denied the runtime socket: install the selinux component (spc_t); else check the socket mount and the agent's group"],
                    ['no_such_socket', 'no socket at the configured path. k3s and RKE2 keep containerd at /run/k3s/containerd/containerd.sock: set --container-runtime-endpoint and mount that directory'],
                    ['not_a_socket', "the configured path is not a socket (a hostPath to a missing file makes a directory): mount the runtime's socket directory and set --container-runtime-endpoint to the kubelet's"],
                    ['not_cri', "what answers at the configured path is not a CRI runtime (no gRPC answer, or UNIMPLEMENTED to Version): set --container-runtime-endpoint to the socket the kubelet's --container-runtime-endpoint names"]];
      local name(i) = 'worker-%d' % (i + 1);
      local inst(i) = '10.0.0.%d:9547' % (i + 1);
      {
        name: 'Agent blind every way, no kubelet view: no critical alert, not even the fleet veto',
        interval: '10s',
        input_series: std.flattenArrays([
          blind(i + 1, name(i), ways[i][0]) + [
            S_('up', L(inst(i), name(i)), '1x%d' % n),
            S_('pleg_healthy', L(inst(i), name(i)), '0x%d' % n),
            S_('pleg_runtime_status_seconds_since_success', L(inst(i), name(i)), '0+10x%d' % n),
            S_('pleg_runtime_status_healthy', L(inst(i), name(i)), '0x%d' % n),
            S_('pleg_diagnosis_cause', L(inst(i), name(i), { cause: 'runtime_unavailable' }), '0.9x%d' % n),
          ]
          for i in std.range(0, 3)
        ]),
        alert_rule_test: [
          lib.silent(end, a)
          for a in ['PLEGNotHealthy', 'CRIRuntimeUnavailable', 'CRIRuntimeStatusDown', 'CRIRuntimeNotReady',
                    'PLEGFleetWideCause', 'KubeletPLEGStuck']
        ] + [{
          eval_time: lib.t(end),
          alertname: 'PlegscopeCannotReachRuntime',
          exp_alerts: [cannotReachAt(name(i), ways[i][0], ways[i][1]) for i in std.range(0, 3)],
        }],
      },

      // ------------------------------------------------------------ PlegscopeConditionStale
      // worker-1's agent is uninstalled at t=60 and its condition stays
      // True; worker-2's condition is True while its agent is up (a live
      // verdict); worker-3's agent is gone but its condition is False;
      // worker-4's agent is gone with only the narrow condition True (what
      // node-repairing remediators act on).
      local CS = c.conditionStaleForSeconds;
      local n = lib.samples(70 + CS + 60);
      local condOf(type, name, status, v) = S_('kube_node_status_condition', ksmL + nodeOf(name) { condition: type, status: status }, v);
      local cond(name, status, v) = condOf('plegscope.io/PLEGUnhealthy', name, status, v);
      {
        name: 'PlegscopeConditionStale when the condition stays True with no agent up for %s' % pd(CS),
        interval: '10s',
        input_series: [
          S_('up', L('10.0.0.1:9547', 'worker-1'), '1x6 0x%d' % n),
          cond('worker-1', 'true', '1x%d' % (n + 6)),
          S_('up', L('10.0.0.2:9547', 'worker-2'), '1x%d' % (n + 6)),
          cond('worker-2', 'true', '1x%d' % (n + 6)),
          S_('up', L('10.0.0.3:9547', 'worker-3'), '1x6 0x%d' % n),
          cond('worker-3', 'true', '0x%d' % (n + 6)),
          S_('up', L('10.0.0.4:9547', 'worker-4'), '1x6 0x%d' % n),
          cond('worker-4', 'true', '0x%d' % (n + 6)),
          condOf('plegscope.io/NodeRepairAdvised', 'worker-4', 'true', '1x%d' % (n + 6)),
        ],
        alert_rule_test: [
          lib.silent(70 + CS - 1, 'PlegscopeConditionStale'),
          lib.firing(70 + CS, 'PlegscopeConditionStale', [{
            exp_labels: nodeOf(w) { severity: 'warning' },
            exp_annotations: {
              summary: 'A plegscope node condition on %s is True with no agent to clear it' % w,
              description: 'Node %s carries a plegscope condition (plegscope.io/PLEGUnhealthy or plegscope.io/NodeRepairAdvised) True but no plegscope agent is up there to keep it current: the agent was uninstalled, kept off the node, or is crash-looping. Remediators matching the condition act on a stale verdict. Clear it (README, "Uninstalling") or bring the agent back.' % w,
              runbook_url: runbook('PlegscopeConditionStale'),
            },
          } for w in ['worker-1', 'worker-4']]),
        ],
      },

      // ------------------------------------------------------------ PlegscopeKubeletUnreadable
      local KU = c.kubeletUnreadableForSeconds;
      local n = lib.samples(60 + KU + 60);
      {
        name: 'PlegscopeKubeletUnreadable when the kubelet reader has failed for %s' % pd(KU),
        interval: '10s',
        input_series: [
          S_('pleg_kubelet_up', L('10.0.0.1:9547', 'worker-1'), '1x6 0x%d' % n),
          S_('pleg_kubelet_up', L('10.0.0.2:9547', 'worker-2'), '1x%d' % (n + 6)),
        ],
        alert_rule_test: [
          lib.silent(70 + KU - 1, 'PlegscopeKubeletUnreadable'),
          lib.firing(70 + KU, 'PlegscopeKubeletUnreadable', [{
            exp_labels: nodeOf('worker-1') { severity: 'warning' },
            exp_annotations: {
              summary: 'plegscope on worker-1 cannot read the kubelet',
              description: "plegscope on node worker-1 has failed to read the kubelet's /metrics for %s; the diagnosis lacks the kubelet's side. On kubeadm and Cluster API nodes the kubelet's serving certificate is self-signed: set serverTLSBootstrap: true in the KubeletConfiguration (kubeadm: the kubelet ConfigMap; Cluster API: KubeadmConfigTemplate kubeletExtraArgs rotate-server-certificates=true) and approve the kubelet-serving CSRs (or run kubelet-csr-approver); or set the DaemonSet's kubelet TLS mode to insecure (--kubelet-insecure-skip-tls-verify) where that is acceptable. /diagnose names the exact error."
                           % pd(KU),
              runbook_url: runbook('PlegscopeKubeletUnreadable'),
            },
          }]),
        ],
      },

    ],
  },
}
