"""A fleet on a real API server (run in test_pleg_unhealthy.py's hold): kwok keeps
1,000 simulated Nodes Ready beside the real one (--manage-all-nodes=false and
an annotation selector the real Node does not carry, so the kubelet keeps its
own), and plegscope's requests are counted.

- the real Node stays the kubelet's (its Ready heartbeat keeps coming from
  the kubelet; kwok never takes it);
- the simulated Nodes carry plegscope.io/exclude=true, the DaemonSet's
  documented opt-out, so it starts no agent pod on them;
- `kubectl plegscope nodes` (plugins/kubectl-plegscope, through the built
  kubectl) names every Node, the 1,000 simulated ones included, and says
  which have no agent; its wall time and the API server's
  apiserver_request_total deltas for the run are written;
- the DaemonSet's agent (with the node-condition component) on the real
  node: its requests over the node test's window, from the API server's
  audit log (the shipped ServiceAccount's requests, told apart by the pod its
  token is bound to), extrapolated to 1,000 nodes per minute.
No timing is asserted.
"""

import collections
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import parts  # noqa: E402
from cluster import NODE, log  # noqa: E402
from harness import Process, free_port, wait_until  # noqa: E402

FLEET = int(os.environ.get("PLEGSCOPE_CLUSTER_FLEET", "1000"))
SELECTOR = "kwok.x-k8s.io/node=fake"


# kwok v0.8.0 ships no stages in its binary ("no stages found"): one stage of
# our own turns each simulated Node Ready once, which is all the fleet's
# listing needs (no heartbeat: the test reads the fleet within a minute).
NODE_STAGE = """apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: node-initialize
spec:
  resourceRef:
    apiGroup: v1
    kind: Node
  selector:
    matchExpressions:
    - key: '.status.phase'
      operator: 'NotIn'
      values:
      - 'Running'
  next:
    statusTemplate: |
      phase: Running
      conditions:
      - type: Ready
        status: "True"
        reason: KubeletReady
        message: kwok
        lastHeartbeatTime: {{ Now }}
        lastTransitionTime: {{ Now }}
"""


def fake_nodes(n):
    items = [{"apiVersion": "v1", "kind": "Node",
              "metadata": {"name": "kwok-%04d" % i, "annotations": {"kwok.x-k8s.io/node": "fake"},
                           "labels": {"type": "kwok", "plegscope.io/exclude": "true"}},
              "spec": {"taints": [{"key": "kwok.x-k8s.io/node", "value": "fake", "effect": "NoSchedule"}]}}
             for i in range(n)]
    return {"apiVersion": "v1", "kind": "List", "items": items}


def ready_counts(c):
    nodes = c.get_json("nodes")["items"]
    ready = [n["metadata"]["name"] for n in nodes
             if any(x["type"] == "Ready" and x["status"] == "True" for x in n["status"].get("conditions", []))]
    return len(ready), NODE in ready


def request_totals(c):
    m = harness.Metrics(c.kubectl("get", "--raw", "/metrics").stdout)
    out = collections.Counter()
    for s in m.find("apiserver_request_total"):
        out[(s.labels.get("verb"), s.labels.get("resource"))] += s.value
    return out


def run_plugin(c):
    plugin = os.path.join(harness.source_dir(), "plugins", "kubectl-plegscope")
    env = dict(os.environ, PATH=os.path.dirname(c.bins["kubectl"]) + os.pathsep + os.environ["PATH"],
               KUBECONFIG=c.admin_kubeconfig)
    before = request_totals(c)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, plugin, "nodes"], capture_output=True, text=True, env=env, timeout=600)
    seconds = time.monotonic() - t0
    delta = {"%s %s" % k: v - before.get(k, 0) for k, v in request_totals(c).items()
             if v - before.get(k, 0) > 0 and k[1] in ("nodes", "pods")}
    lines = r.stdout.splitlines()
    log("kubectl plegscope nodes: exit %d in %.1fs, %d lines; requests %s; stderr %s"
        % (r.returncode, seconds, len(lines), delta, r.stderr.strip()[:300]))
    named = {ln.split()[0] for ln in lines if ln.strip()}
    assert NODE in named and sum(1 for n in named if n.startswith("kwok-")) == FLEET, lines[:5]
    return {"exit": r.returncode, "seconds": seconds, "lines": len(lines), "requests": delta,
            "stderr": r.stderr.strip()[:500]}


def agent_requests(c, start, seconds, pod_name):
    """The DaemonSet agent's requests (its bound token names its pod) from
    the audit log since entry START, over SECONDS, per minute per 1,000 nodes."""
    seen = collections.Counter("%s %s%s %s" % (v, r, "/" + sub if sub else "", code)
                               for v, r, sub, code, pod in c.audit()[start:] if pod == pod_name)
    per_min_1000 = {k: n * 60.0 / seconds * 1000 for k, n in seen.items()}
    log("plegscope's requests in %.0fs: %s; per minute per 1,000 nodes: %s" % (seconds, dict(seen), per_min_1000))
    assert any(k.startswith("get nodes ") for k in seen), seen
    return {"window_s": seconds, "requests": dict(seen), "per_minute_per_1000_nodes": per_min_1000}


def kwok_fleet(c):
    """FLEET simulated Nodes Ready beside the real one, and the plugin's
    `nodes` over them; the figures."""
    parts.binaries(parts.CLUSTER + ("kwok",))
    stages = os.path.join(c.dir, "kwok-stages.yaml")
    with open(stages, "w") as f:
        f.write(NODE_STAGE)
    kwok = Process("kwok", [c.bins["kwok"], "--config", stages, "--kubeconfig", c.admin_kubeconfig,
                            "--manage-all-nodes=false",
                            "--manage-nodes-with-annotation-selector", SELECTOR,
                            "--server-address", "127.0.0.1:%d" % free_port()])
    try:
        t0 = time.monotonic()
        c.kubectl("create", "-f", "-", input=json.dumps(fake_nodes(FLEET)), timeout=600)
        created = time.monotonic() - t0

        def all_ready():
            assert kwok.alive(), "kwok exited:\n" + kwok.tail()
            n, real = ready_counts(c)
            return n == FLEET + 1 and real
        wait_until(all_ready, 600, "%d kwok nodes and the real one Ready" % FLEET, interval=1.0)
        ready = time.monotonic() - t0
        log("%d kwok nodes created in %.1fs, all Ready after %.1fs" % (FLEET, created, ready))
        # The real Node stays the kubelet's: kwok never patched it.
        assert '"node":"%s"' % NODE not in kwok.output() and "/%s\"" % NODE not in kwok.output(), kwok.tail()
        return {"fleet": FLEET, "create_s": created, "ready_s": ready, "plugin_nodes": run_plugin(c)}
    finally:
        kwok.stop()
