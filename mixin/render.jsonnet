// Every file the mixin renders: path (from the repository root) ->
// {header, yaml} or {json}. scripts/mixin evaluates it (`config` overrides
// _config) and writes the files; jsonnet's own YAML/JSON manifesters are
// written in jsonnet and take minutes on these documents.
function(config={})
  local mixin = (import 'mixin.libsonnet') + { _config+:: config };
  // The dashboards once more with a `cluster` variable, for Grafanas that
  // read many clusters through one data source (Thanos, Mimir).
  local multi = (import 'mixin.libsonnet') + { _config+:: config { showMultiCluster: true } };
  local tests = (import 'tests/plegscope_test.libsonnet') + (import 'tests/agent_view_test.libsonnet') + (import 'tests/kubelet_test.libsonnet')
                + (import 'tests/runtime_status_test.libsonnet') + (import 'tests/daemonset_test.libsonnet')
                + (import 'tests/repair_test.libsonnet')
                + { _config:: mixin._config };
  local yaml(header, doc) = { header: header, yaml: doc };
  local generated = '# GENERATED from mixin/ by scripts/mixin. Do not edit: change mixin/ and run scripts/mixin.\n';
  local isKubelet(group) = std.startsWith(group.name, 'kubelet-');
  local groups(kubelet) = [
    grp
    for grp in mixin.prometheusRules.groups + mixin.prometheusAlerts.groups
    if isKubelet(grp) == kubelet
  ];
  local prometheusRule(name, kubelet) = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: name,
      namespace: 'plegscope',
      labels: { 'app.kubernetes.io/name': 'plegscope', role: 'alert-rules' },
    },
    spec: { groups: groups(kubelet) },
  };
  {
    'alerts/plegscope.rules.yml': yaml(generated, { groups: groups(false) }),
    'alerts/kubelet.rules.yml': yaml(generated, { groups: groups(true) }),
    'alerts/tests/plegscope_test.yml': yaml(generated + '# promtool test rules alerts/tests/plegscope_test.yml\n', tests.plegscopeTests),
    'alerts/tests/kubelet_test.yml': yaml(generated + '# promtool test rules alerts/tests/kubelet_test.yml\n', tests.kubeletTests),
    'deploy/prometheusrule.yaml': yaml(generated, prometheusRule('plegscope', false)),
    'deploy/kubelet-prometheusrule.yaml': yaml(generated, prometheusRule('plegscope-kubelet', true)),
  } + {
    ['dashboards/' + name]: { json: mixin.grafanaDashboards[name] }
    for name in std.objectFields(mixin.grafanaDashboards)
  } + {
    ['dashboards/multi-cluster/' + name]: { json: multi.grafanaDashboards[name] }
    for name in std.objectFields(multi.grafanaDashboards)
  }
