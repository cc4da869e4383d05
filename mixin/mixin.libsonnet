// plegscope monitoring mixin: prometheusAlerts, prometheusRules,
// grafanaDashboards (file name -> dashboard) and _config to override.
(import 'config.libsonnet')
+ (import 'alerts/plegscope.libsonnet')
+ (import 'alerts/kubelet.libsonnet')
+ (import 'alerts/runtime_status.libsonnet')
+ (import 'alerts/daemonset.libsonnet')
+ (import 'alerts/repair.libsonnet')
+ (import 'dashboards/fleet.libsonnet')
+ (import 'dashboards/node.libsonnet')
