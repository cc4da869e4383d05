"""plegscope beside the real kubelet: the agent started as a node process on
the cluster's containerd with the shipped ServiceAccount's token, both sides'
metrics read, histograms compared over the same window, and the pods of a
locally built image scaled up and down through the API server."""

import json
import os
import ssl
import time
import urllib.request

import harness
from cluster import NODE, NODE_IP, log  # first: puts tests/e2e on the path
import oci_image  # noqa: E402  tests/e2e
from harness import wait_until

SOURCE = harness.source_dir()
NAMESPACE = "pscl-load"


def shipped_token(cluster, bound_pod=None):
    """A token of the shipped ServiceAccount (deploy/namespace, serviceaccount,
    rbac), bound to BOUND_POD when given (the token then names the pod's node,
    as the DaemonSet's projected token does)."""
    for f in ("namespace.yaml", "serviceaccount.yaml", "rbac.yaml"):
        cluster.kubectl("apply", "-f", os.path.join(SOURCE, "deploy", f))
    args = ["create", "token", "plegscope", "-n", "plegscope", "--duration", "2h"]
    if bound_pod:
        args += ["--bound-object-kind", "Pod", "--bound-object-name", bound_pod]
    token = cluster.kubectl(*args).stdout.strip()
    path = os.path.join(cluster.dir, "plegscope-token")
    with open(path, "w") as f:
        f.write(token)
    return path


def identity_pod(c):
    """A pod of the shipped ServiceAccount on the node: the token bound to it
    names the node, as the DaemonSet pod's projected token does."""
    for f in ("namespace.yaml", "serviceaccount.yaml"):
        c.kubectl("apply", "-f", os.path.join(SOURCE, "deploy", f))
    c.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "identity", "namespace": "plegscope"},
             "spec": {"serviceAccountName": "plegscope", "hostNetwork": True, "terminationGracePeriodSeconds": 1,
                      "containers": [{"name": "w", "image": oci_image.WORKLOAD_IMAGE,
                                      "imagePullPolicy": "Never", "command": ["/workload"]}]}})
    wait_until(lambda: c.get_json("pod", "-n", "plegscope", "identity")["status"].get("phase") == "Running",
               120, "pod plegscope/identity Running", interval=1.0)


def agent_flags(cluster, token_file):
    """The DaemonSet's view of the node, as flags: the kubelet beside it over
    TLS verified against the cluster CA, its own node name, the shipped
    token for the kubelet and the API server."""
    return ["--kubelet-endpoint", "https://%s:%d" % (NODE_IP, cluster.kubelet_port),
            "--kubelet-token-file", token_file, "--kubelet-ca-file", cluster.pki.ca_cert,
            "--api-server-token-file", token_file, "--api-server-ca-file", cluster.pki.ca_cert,
            "--node-name", NODE, "--runtime-root", cluster.ctd.root,
            "--journal-path", os.path.join(cluster.dir, "no-journal")]


def agent_env(cluster):
    # In-cluster discovery as a pod sees it; no kube-proxy here, so the
    # service host is the API server's own address.
    return {"KUBERNETES_SERVICE_HOST": NODE_IP, "KUBERNETES_SERVICE_PORT": str(cluster.api_port)}


def kubelet_metrics(cluster, token_file):
    ctx = ssl.create_default_context(cafile=cluster.pki.ca_cert)
    with open(token_file) as f:
        token = f.read().strip()
    req = urllib.request.Request("https://%s:%d/metrics" % (NODE_IP, cluster.kubelet_port),
                                 headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
        return harness.Metrics(r.read().decode())


def histogram(metrics, name, **labels):
    """{'sum', 'count', 'buckets': [(le, cumulative)]} of one histogram series."""
    buckets = sorted((float(s.labels["le"]), s.value) for s in metrics.find(name + "_bucket", **labels))
    return {"sum": metrics.sum(name + "_sum", **labels), "count": metrics.sum(name + "_count", **labels),
            "buckets": buckets}


def window(before, after):
    """Mean and p99 (the upper bound of the bucket holding it) of what a
    histogram observed between two snapshots; None when it observed nothing."""
    n = after["count"] - before["count"]
    if n <= 0:
        return None
    prev = dict(before["buckets"])
    p99 = None
    for le, cum in after["buckets"]:
        if cum - prev.get(le, 0) >= 0.99 * n:
            p99 = le
            break
    return {"n": int(n), "mean": (after["sum"] - before["sum"]) / n, "p99_le": p99}


def workload(replicas):
    """A Deployment of the locally built workload image, one container per
    pod, host network (the pods need no address; the kubelet's PLEG relists
    them all the same)."""
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "load", "namespace": NAMESPACE},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "load"}},
                     "template": {"metadata": {"labels": {"app": "load"}}, "spec": {
                         "hostNetwork": True, "automountServiceAccountToken": False,
                         "enableServiceLinks": False, "terminationGracePeriodSeconds": 1,
                         "containers": [{"name": "w", "image": oci_image.WORKLOAD_IMAGE,
                                         "imagePullPolicy": "Never", "command": ["/workload"]}]}}}}


def scale(cluster, replicas, timeout):
    """Scales the workload and waits until the kubelet runs exactly that many
    of its pods (Running, container ready) and no other of them is left."""
    cluster.kubectl("create", "namespace", NAMESPACE, check=False)
    cluster.apply(workload(replicas))

    def settled():
        pods = cluster.get_json("pods", "-n", NAMESPACE)["items"]
        running = [p for p in pods if p["status"].get("phase") == "Running"
                   and all(c.get("ready") for c in p["status"].get("containerStatuses", []))
                   and not p["metadata"].get("deletionTimestamp")]
        return len(running) == replicas and len(pods) == replicas
    t0 = time.monotonic()
    wait_until(settled, timeout, "%d workload pods running" % replicas, interval=1.0)
    log("%d workload pods running after %.1fs" % (replicas, time.monotonic() - t0))


def cpu_seconds(pid):
    """utime + stime of a process and its reaped children, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return sum(int(x) for x in fields[11:15]) / ticks


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
