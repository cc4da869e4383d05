"""The kubelet's /metrics as a kubelet 1.30 writes it (families, [ALPHA]
help texts, bucket bounds), generated from a few numbers so the fake kubelet
can script them over time. Shared by tests/lib/fake_kubelet.py and the
fixture in tests/fixtures/kubelet/."""

RELIST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
INTERVAL_BUCKETS = RELIST_BUCKETS
OPERATION_BUCKETS = [0.005, 0.0125, 0.03125, 0.078125, 0.1953125, 0.48828125, 1.220703125,
                     3.0517578125, 7.62939453125, 19.073486328125, 47.6837158203125,
                     119.20928955078125, 298.0232238769531, 745.0580596923828]
OPERATIONS = ["list_containers", "list_podsandbox", "container_status", "podsandbox_status",
              "run_podsandbox", "stop_podsandbox", "create_container", "start_container",
              "update_container", "version", "status", "exec_sync"]


def fmt(v):
    if v == float("inf"):
        return "+Inf"
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def histogram(lines, name, help_text, bounds, observations, labels=""):
    """observations: list of observed values (seconds)."""
    if help_text is not None:
        lines.append("# HELP %s %s" % (name, help_text))
        lines.append("# TYPE %s histogram" % name)
    sep = "," if labels else ""
    for b in bounds:
        n = sum(1 for o in observations if o <= b)
        lines.append('%s_bucket{%s%sle="%s"} %d' % (name, labels, sep, fmt(float(b)), n))
    lines.append('%s_bucket{%s%sle="+Inf"} %d' % (name, labels, sep, len(observations)))
    lab = "{%s}" % labels if labels else ""
    lines.append("%s_sum%s %s" % (name, lab, fmt(float(sum(observations)))))
    lines.append("%s_count%s %d" % (name, lab, len(observations)))


def exposition(relist_durations, last_seen, running_pods=12, version="v1.30.2",
               evented_gate=False, discard_events=0, padding_series=0, ops_count=40, list_streaming_gate=None):
    """relist_durations: every relist's duration so far (the count is its length)."""
    out = []
    out.append("# HELP go_goroutines Number of goroutines that currently exist.")
    out.append("# TYPE go_goroutines gauge")
    out.append("go_goroutines 412")
    out.append("# HELP kubernetes_build_info [ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.")
    out.append("# TYPE kubernetes_build_info gauge")
    major, minor = version.lstrip("v").split(".")[:2]
    out.append('kubernetes_build_info{build_date="2024-06-11T20:20:00Z",compiler="gc",git_commit="39683505b630ff2121012f3c5b16215a1449d5ed",git_tree_state="clean",git_version="%s",go_version="go1.22.4",major="%s",minor="%s",platform="linux/amd64"} 1' % (version, major, minor))
    out.append("# HELP kubernetes_feature_enabled [BETA] This metric records the data about the stage and enablement of a k8s feature.")
    out.append("# TYPE kubernetes_feature_enabled gauge")
    out.append('kubernetes_feature_enabled{name="EventedPLEG",stage="ALPHA"} %d' % (1 if evented_gate else 0))
    out.append('kubernetes_feature_enabled{name="InPlacePodVerticalScaling",stage="ALPHA"} 0')
    if list_streaming_gate is not None:  # the gate exists from 1.36
        out.append('kubernetes_feature_enabled{name="CRIListStreaming",stage="ALPHA"} %d' % (1 if list_streaming_gate else 0))
    out.append("# HELP kubelet_evented_pleg_connection_error_count [ALPHA] The number of errors encountered during the establishment of streaming connection with the CRI runtime.")
    out.append("# TYPE kubelet_evented_pleg_connection_error_count counter")
    out.append("kubelet_evented_pleg_connection_error_count 0")
    out.append("# HELP kubelet_evented_pleg_connection_success_count [ALPHA] The number of times a streaming client was obtained to receive CRI Events.")
    out.append("# TYPE kubelet_evented_pleg_connection_success_count counter")
    out.append("kubelet_evented_pleg_connection_success_count %d" % (1 if evented_gate else 0))
    out.append("# HELP kubelet_pleg_discard_events [ALPHA] The number of discard events in PLEG.")
    out.append("# TYPE kubelet_pleg_discard_events counter")
    out.append("kubelet_pleg_discard_events %d" % discard_events)
    out.append("# HELP kubelet_pleg_last_seen_seconds [ALPHA] Timestamp in seconds when PLEG was last seen active.")
    out.append("# TYPE kubelet_pleg_last_seen_seconds gauge")
    out.append("kubelet_pleg_last_seen_seconds %s" % repr(float(last_seen)))
    histogram(out, "kubelet_pleg_relist_duration_seconds",
              "[ALPHA] Duration in seconds for relisting pods in PLEG.", RELIST_BUCKETS, relist_durations)
    histogram(out, "kubelet_pleg_relist_interval_seconds",
              "[ALPHA] Interval in seconds between relisting in PLEG.", INTERVAL_BUCKETS,
              [1.0 + d for d in relist_durations])
    out.append("# HELP kubelet_running_pods [ALPHA] Number of pods that have a running pod sandbox")
    out.append("# TYPE kubelet_running_pods gauge")
    out.append("kubelet_running_pods %d" % running_pods)
    out.append("# HELP kubelet_runtime_operations_duration_seconds [ALPHA] Duration in seconds of runtime operations. Broken down by operation type.")
    out.append("# TYPE kubelet_runtime_operations_duration_seconds histogram")
    for op in OPERATIONS:
        histogram(out, "kubelet_runtime_operations_duration_seconds", None, OPERATION_BUCKETS,
                  [0.002] * ops_count + ([12.0] if op == "run_podsandbox" else []),
                  labels='operation_type="%s"' % op)
    out.append("# HELP kubelet_runtime_operations_errors_total [ALPHA] Cumulative number of runtime operation errors by operation type.")
    out.append("# TYPE kubelet_runtime_operations_errors_total counter")
    out.append('kubelet_runtime_operations_errors_total{operation_type="container_status"} 3')
    out.append('kubelet_runtime_operations_errors_total{operation_type="exec_sync"} 1')
    out.append("# HELP rest_client_request_duration_seconds [ALPHA] Request latency in seconds. Broken down by verb, and host.")
    out.append("# TYPE rest_client_request_duration_seconds histogram")
    for k in range(padding_series):
        histogram(out, "rest_client_request_duration_seconds", None, OPERATION_BUCKETS, [0.01] * 5,
                  labels='host="10.96.0.1:443",verb="GET",path="/api/v1/namespaces/ns-%d/pods/pod-%d"' % (k, k))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys
    durations = [0.02] * 9000 + [0.3] * 80 + [1.8] * 8
    sys.stdout.write(exposition(durations, 1732460000.123456789, padding_series=int(sys.argv[1]) if len(sys.argv) > 1 else 3))
