"""A real one-node cluster (tests/cluster/cluster.py), plegscope installed
on it as a user installs it, and measured beside its kubelet on the same
containerd. One cluster for all of it:

- the node registers and goes Ready with the kubelet 1.37 built from source;
  a pod on Debian's CNI bridge gets an address from its range;
- install (tests/cluster/install.py): the image assembled by
  scripts/assemble-image and imported, prometheus-operator's CRDs, then
  `kubectl apply -k` of deploy/ with the node-condition and oncall-rbac
  components; the DaemonSet's pod Ready under the shipped securityContext,
  RBAC and NetworkPolicy; Debian's Prometheus scrapes it and loads the
  shipped rules;
- `kubectl plegscope nodes` and `diagnose NODE` through the real pod proxy as
  an on-call user bound only by oncall-rbac's roles;
- the runtime's Status failing: the CNI configuration taken away, the
  kubelet's Ready=False says "container runtime network not ready" and the
  agent names runtime_network_not_ready; put back, both clear;
- at 0, 30 and 110 pods of a locally built image, the kubelet and the
  DaemonSet's agent count the same running pods and containers; the
  fidelity table (relist duration, interval, last seen, runtime operation
  latency, kubelet vs plegscope) and the load figure (containerd's CPU and
  the kubelet's relist p99 with the agent, then with the DaemonSet deleted)
  are written to PLEGSCOPE_CLUSTER_OUT (default: the test's log dir) as JSON
  and printed; no timing is asserted;
- the PLEG events each side saw for the same pod churn (tests/cluster/
  pleg_events.py: the creates of 30 and 80 pods, 5 of the 30 deleted in
  the 30-pod window, a crash-looping pod through the 110-pod one): every
  ContainerStarted/ContainerDied the kubelet logged for those pods was seen
  by the agent (same pod uid, same container id), and both saw the
  crash-looping container's restarts; the table per phase and event type
  goes into cluster-fidelity.json;
- the agent's API requests over the fidelity window, from the audit log,
  per 1,000 nodes (tests/cluster/fleet.py; kwok's simulated Nodes run in
  test_pleg_unhealthy.py's hold);
- the teardown leaves no process, mount, cgroup, link or dir behind.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fleet  # noqa: E402
import harness  # noqa: E402
import install  # noqa: E402
import parts  # noqa: E402
import pleg_events  # noqa: E402
import sidebyside as sbs  # noqa: E402
import tables  # noqa: E402
from cluster import NODE, Cluster, POD_SUBNET, iptables_rules, leftovers, log  # noqa: E402
from harness import wait_until  # noqa: E402

RESULTS = {}


def _out_path(name):
    d = os.environ.get("PLEGSCOPE_CLUSTER_OUT") or harness._log_directory()
    os.makedirs(d, exist_ok=True)
    return os.path.join(d, name)


def check_node(c):
    info = c.get_json("node", NODE)["status"]["nodeInfo"]
    want = parts.versions()["KUBERNETES_VERSION"]
    assert info["kubeletVersion"] == want, info
    assert info["containerRuntimeVersion"].startswith("containerd://"), info
    log("node %s: kubelet %s, %s" % (NODE, info["kubeletVersion"], info["containerRuntimeVersion"]))
    # One pod on the CNI bridge: its address comes from the bridge's range.
    c.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "net", "namespace": "default"},
             "spec": {"automountServiceAccountToken": False, "terminationGracePeriodSeconds": 1,
                      "containers": [{"name": "w", "image": sbs.oci_image.WORKLOAD_IMAGE,
                                      "imagePullPolicy": "Never", "command": ["/workload"]}]}})
    pod = wait_until(lambda: (lambda p: p if p["status"].get("phase") == "Running" else None)(
        c.get_json("pod", "net")), 120, "pod net Running", interval=1.0)
    prefix = POD_SUBNET.rsplit(".", 1)[0] + "."
    assert pod["status"]["podIP"].startswith(prefix), pod["status"]
    c.kubectl("delete", "pod", "net", "--wait=true", timeout=120)


def snapshot(c, token, agent):
    k, a = sbs.kubelet_metrics(c, token), agent.metrics() if agent else None
    snap = {"kubelet": k, "agent": a, "containerd_cpu": sbs.cpu_seconds(c.ctd.proc.pid),
            "t": time.monotonic(), "wall": time.time()}
    return snap


def compare(c, token, agent, relists=20):
    """Both sides over the same window of RELISTS of the kubelet's relists."""
    b = snapshot(c, token, agent)
    n0 = sbs.histogram(b["kubelet"], "kubelet_pleg_relist_duration_seconds")["count"]
    wait_until(lambda: sbs.histogram(sbs.kubelet_metrics(c, token), "kubelet_pleg_relist_duration_seconds")
               ["count"] >= n0 + relists, 120, "%d kubelet relists" % relists, interval=1.0)
    e = snapshot(c, token, agent)
    row = {"seconds": e["t"] - b["t"],
           "containerd_cpu_percent": 100.0 * (e["containerd_cpu"] - b["containerd_cpu"]) / (e["t"] - b["t"])}
    sides = [("kubelet", "kubelet_")] + ([("plegscope", "pleg_")] if agent else [])
    for side, prefix in sides:
        bm, em = b["kubelet" if side == "kubelet" else "agent"], e["kubelet" if side == "kubelet" else "agent"]
        r = {}
        # pleg_pod_relist_duration_seconds: the on-demand relists of one pod (1.36+), on the
        # same worker as the global relist; the kubelet requests one after each pod sync that
        # acted, the agent after each relist that finds a sandbox or container it did not list
        # before (what such a sync creates; the agent makes no sync of its own).
        for h in ("pleg_relist_duration_seconds", "pleg_relist_interval_seconds",
                  "pleg_pod_relist_duration_seconds"):
            name = (prefix + h) if side == "kubelet" else h
            r[h] = sbs.window(sbs.histogram(bm, name), sbs.histogram(em, name))
        r["pleg_last_seen_age_seconds"] = e["wall"] - em.get(prefix + "pleg_last_seen_seconds" if side ==
                                                              "kubelet" else "pleg_last_seen_seconds", 0)
        r["running_pods"] = em.get("kubelet_running_pods" if side == "kubelet" else "pleg_running_pods")
        cname = "kubelet_running_containers" if side == "kubelet" else "pleg_running_containers"
        r["running_containers"] = {s.labels.get("container_state"): s.value for s in em.find(cname)}
        oname = "kubelet_runtime_operations_duration_seconds" if side == "kubelet" else \
            "pleg_runtime_operations_duration_seconds"
        r["runtime_operations"] = {}
        for op in sorted(em.label_values(oname + "_count", "operation_type")):
            w = sbs.window(sbs.histogram(bm, oname, operation_type=op), sbs.histogram(em, oname, operation_type=op))
            if w:
                r["runtime_operations"][op] = w
        row[side] = r
    return row


def same_counts(c, token, agent, pods):
    """Both sides count PODS workload pods plus the agent's own as running,
    and as many running containers; waited for, since each reads on its own
    relist."""
    want = pods + 1

    def agree():
        k, a = sbs.kubelet_metrics(c, token), agent.metrics()
        kp, ap = k.get("kubelet_running_pods", 0), a.get("pleg_running_pods", 0)
        kc = k.get("kubelet_running_containers", 0, container_state="running")
        ac = a.get("pleg_running_containers", 0, container_state="running")
        if not (kp == ap == want and ac == kc == want):
            raise AssertionError("running pods/containers: kubelet %s/%s, plegscope %s/%s" % (kp, kc, ap, ac))
        return kp, kc, ap, ac
    got = wait_until(agree, 60, "kubelet and plegscope both counting %d running pods" % want, interval=1.0)
    log("running pods/containers (the agent's own pod included): kubelet %s/%s, plegscope %s/%s" % got)


def fidelity_and_load(c, token, agent, after_first, churn):
    """The fidelity table at 0, 30 and 110 pods, and the load with the agent;
    AFTER_FIRST() runs after the first window. CHURN (pleg_events.Churn)
    classes the pods each scale made; its deletes run through the 30-pod
    window and its crash-looping pod through the 110-pod one, no window of
    their own."""
    fidelity = {}
    for pods in (0, 30, 110):
        sbs.scale(c, pods, 180 + 2 * pods)
        same_counts(c, token, agent, pods)
        if pods:
            churn.mark(pleg_events.PHASES[0 if pods == 30 else 1])
        if pods == 30:
            churn.delete_some()
        elif pods == 110:
            churn.start_crash_loop()
        # At 110 pods the window is the load figure's too, so twice as long.
        fidelity[str(pods)] = compare(c, token, agent, relists=40 if pods == 110 else 20)
        log("fidelity at %d pods: %s" % (pods, fidelity[str(pods)]))
        if pods == 0:
            after_first()
        if pods == 30:
            churn.mark_replacements()
    return fidelity, fidelity["110"]


def without_agent(c, token):
    c.kubectl("delete", "daemonset", "plegscope", "-n", install.NAMESPACE, "--wait=true", timeout=120)
    wait_until(lambda: install.agent_pod(c) is None, 120, "the agent's pod gone", interval=1.0)
    return compare(c, token, None, relists=40)


def write_figures(c, fidelity, with_agent, without, requests, events):
    load = {"pods": 110, "with_plegscope": with_agent, "without_plegscope": without}
    log("load at 110 pods: containerd CPU %.2f%% with plegscope, %.2f%% without"
        % (with_agent["containerd_cpu_percent"], without["containerd_cpu_percent"]))
    doc = {"fidelity": fidelity, "load": load, "kubelet": c.get_json("node", NODE)["status"]["nodeInfo"],
           "events": events}
    sbs.dump(_out_path("cluster-fidelity.json"), doc)
    log("wrote %s\n%s\n\n%s\n\n%s" % (_out_path("cluster-fidelity.json"), tables.fidelity(doc), tables.load(doc),
                                      tables.events(doc)))
    sbs.dump(_out_path("cluster-agent-requests.json"), requests)


def test_cluster_node():
    rules = iptables_rules()
    with install.image_meanwhile() as image, Cluster() as c:
        tmp, cg = c.ctd.tmp, c.ctd.cgroup_parent
        check_node(c)
        pod = install.install(c, image)
        install.scrape_and_rules(c, pod)
        install.oncall_plugin(c)
        install.network_not_ready(c, pod)
        agent = install.PodAgent(pod)
        wait_until(lambda: agent.metrics().get("pleg_kubelet_up") == 1, 60, "plegscope reading the kubelet")
        report = agent.get_json("/diagnose")
        log("plegscope's view of the kubelet: %s" % {k: report["kubelet"].get(k) for k in
                                                      ("version", "model", "up") if k in report["kubelet"]})
        token = sbs.shipped_token(c)
        start, t0 = len(c.audit()), time.monotonic()
        # The Node is Ready again and the runtime answers NetworkReady=true:
        # the relists are measured while the agent's cause has yet to clear.
        churn = pleg_events.Churn(c, agent, pod)
        fidelity, with_agent = fidelity_and_load(c, token, agent, lambda: install.network_cleared(c, pod), churn)
        requests = fleet.agent_requests(c, start, time.monotonic() - t0, pod["metadata"]["name"])
        events = churn.finish(c.procs["kubelet"].log_path)
        write_figures(c, fidelity, with_agent, without_agent(c, token), requests, events)
    left = leftovers(tmp, cg, rules)
    assert not left, "the cluster left behind: %s" % left


if __name__ == "__main__":
    harness.main(globals())
