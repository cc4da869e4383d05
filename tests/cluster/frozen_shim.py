#!/usr/bin/env python3
"""One pod's shim frozen while the real kubelet's own call for that pod waits
on it, past the kubelet's 3-minute PLEG threshold, with plegscope beside it.

On the one-node cluster (tests/cluster/cluster.py, the e2e containerd 1.6:
test_pleg_unhealthy.py pins PLEGSCOPE_CONTAINERD=debian-1.6), a Burstable pod's
shim is stopped in the kernel with the cgroup v1 freezer (its tasks in D, as a
shim stuck on storage is), then the pod is resized in place (`kubectl patch
--subresource resize`): the kubelet calls UpdateContainerResources, which
containerd 1.6 runs holding the container's status lock while it waits on the
shim, so every ListContainers waits too, the kubelet's relist among them.

Not on containerd 2.x, measured on 2.3.7 with kubelet 1.34.4 (2026-12-07): the
shim is found and frozen as on 1.6, but the chain never forms. With NRI on (2.x's
default) UpdateContainerResources first has NRI describe the container, which
waits on the shim without the lock (bench/results/containerd-matrix.md). With
NRI disabled (Cluster(containerd_nri=False)) it takes the lock, but its task
lookup is bounded by the tasks service's io.containerd.timeout.task.state (2 s):
the kubelet logs "failed to update resources: failed to get task: context
deadline exceeded" every 2 s, the lock is let go each time, the relists pass,
and neither the kubelet nor plegscope turns unhealthy within 330 s. So on 2.x a
frozen shim under a resize is a slow pod, not a PLEG hang, and this scenario
stays on 1.6.
The kubelet runs with --runtime-request-timeout 10m. With its default of 2
minutes the hold never reaches 3: at 2 minutes the kubelet cancels the call,
containerd lets the lock go, the relists waiting on it complete (a PLEG event
13 ms after the cancel, measured) and the kubelet retries the resize at once,
so its relist completes every 2 minutes and its PLEG stays healthy, slow.
Asserted:
- the kubelet logs "PLEG is not healthy" and its Ready goes False saying so;
- plegscope's /healthz turns 500 within a few seconds of the kubelet's log
  line (the same 3-minute rule on the same runtime);
- plegscope.io/PLEGUnhealthy is True (reason ShimHung) before Ready=False;
  the lead is printed and written;
- the report ranks shim_hung first, naming the pod (runtime_hung, if named,
  below it);
- thawed: both clear, the condition goes False after its clear-after time,
  the resize goes through; the freezer cgroup is removed.

test_pleg_unhealthy.py runs it in a child process beside the SIGSTOP
scenario (env PLEGSCOPE_CLUSTER_SLOT, PLEGSCOPE_CLUSTER_TUNABLES=outside,
PLEGSCOPE_FROZEN_SHIM_OUT, PLEGSCOPE_FROZEN_SHIM_THAWED: a file made once
the shim is thawed); it also runs alone.
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import pleg_watch as pw  # noqa: E402
import sidebyside as sbs  # noqa: E402
from cluster import Cluster, iptables_rules, leftovers, log  # noqa: E402
import cgroups  # noqa: E402  tests/e2e, on the path after cluster
import parts  # noqa: E402
from containerd_fixture import bed_description  # noqa: E402
import oci_image  # noqa: E402
from e2e_util import Agent  # noqa: E402
from harness import wait_until  # noqa: E402

SOURCE = harness.source_dir()
NAMESPACE = "pscl-shim"
POD = "stuck"
# Past the 3-minute hold and the Ready update after it (see above).
KUBELET_TIMEOUT = "10m"


def stuck_pod(c):
    """A Burstable pod whose CPU may be resized in place."""
    c.kubectl("create", "namespace", NAMESPACE)
    c.apply({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": POD, "namespace": NAMESPACE},
             "spec": {"hostNetwork": True, "automountServiceAccountToken": False, "enableServiceLinks": False,
                      "terminationGracePeriodSeconds": 1,
                      "containers": [{"name": "w", "image": oci_image.WORKLOAD_IMAGE, "imagePullPolicy": "Never",
                                      "command": ["/workload"],
                                      "resources": {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}},
                                      "resizePolicy": [{"resourceName": "cpu",
                                                        "restartPolicy": "NotRequired"}]}]}})
    wait_until(lambda: c.get_json("pod", "-n", NAMESPACE, POD)["status"].get("phase") == "Running",
               120, "pod %s/%s Running" % (NAMESPACE, POD), interval=1.0)


def shim_of_pod(c):
    """The pid of the containerd-shim serving the pod's sandbox."""
    r = subprocess.run([c.bins["crictl"], "--runtime-endpoint", c.ctd.endpoint, "pods", "--name", POD,
                        "--namespace", NAMESPACE, "-q"], capture_output=True, text=True, timeout=30)
    sids = r.stdout.split()
    assert r.returncode == 0 and len(sids) == 1, (r.returncode, r.stdout, r.stderr)
    pids = [pid for pid, _, sid in c.ctd.shim_pids() if sid == sids[0]]
    assert len(pids) == 1, "shims of sandbox %s: %r" % (sids[0], pids)
    return pids[0]


def cpu_limit(c):
    pod = c.get_json("pod", "-n", NAMESPACE, POD)
    return [s.get("resources", {}).get("limits", {}).get("cpu") for s in pod["status"]["containerStatuses"]]


def resize(c, cpu):
    patch = '{"spec":{"containers":[{"name":"w","resources":{"limits":{"cpu":"%s"}}}]}}' % cpu
    c.kubectl("patch", "pod", POD, "-n", NAMESPACE, "--subresource", "resize", "-p", patch)
    log("pod %s/%s resized in place: cpu limit %s" % (NAMESPACE, POD, cpu))


def check(figures, report, cond, w):
    top = report["causes"][0]
    log("causes: %s; top: %s" % ([(x["id"], x["severity"]) for x in report["causes"]], top["summary"]))
    assert abs(figures["agent_healthz_500_after_stop_s"] - figures["kubelet_log_pleg_after_stop_s"]) <= 10, figures
    assert report["status"] == "unhealthy", report["status"]
    assert top["id"] == "shim_hung" and top["severity"] == "critical", report["causes"]
    assert "%s/%s" % (NAMESPACE, POD) in top["summary"], top["summary"]
    ids = [x["id"] for x in report["causes"]]
    assert "runtime_hung" not in ids[:1], ids
    assert cond["reason"] == "ShimHung", cond
    assert figures["condition_lead_over_ready_false_s"] >= 0, figures


def hold(c, agent):
    """Freezes the pod's shim, resizes the pod, waits for both sides to turn;
    thaws whatever happens. (watch, report, Ready, condition, thawed at)"""
    shim = shim_of_pod(c)
    freezer = None
    try:
        freezer = cgroups.freeze(shim, c.ctd.name)
        log("pod %s/%s: shim pid %d frozen (%s)" % (NAMESPACE, POD, shim, freezer))
        resize(c, "300m")
        w = pw.Watch(c, agent, time.time())
        wait_until(w.all_turned, 330, "the kubelet and plegscope both reporting PLEG unhealthy", interval=1.0)
        report = agent.get_json("/diagnose")
        ready, cond = c.node_condition("Ready"), c.node_condition(pw.COND)
    finally:
        cgroups.thaw(freezer)
        marker = os.environ.get("PLEGSCOPE_FROZEN_SHIM_THAWED")
        if marker:
            open(marker, "w").close()
    log("shim thawed, freezer cgroup removed")
    return w, report, ready, cond, time.time()


def test_frozen_shim_on_real_kubelet():
    if not os.path.isdir(cgroups.FREEZER):
        raise harness.Skip("no cgroup v1 freezer at %s" % cgroups.FREEZER)
    own = os.environ.get("PLEGSCOPE_CLUSTER_TUNABLES") != "outside"
    rules = iptables_rules()
    with Cluster(kubelet_flags=["--runtime-request-timeout", KUBELET_TIMEOUT], own_tunables=own) as c:
        log("bed: %s, NRI %s; kubelet %s" % (bed_description(c.ctd.bed), "on" if c.ctd.nri else "disabled",
                                              parts.versions()["KUBERNETES_VERSION"]))
        if c.ctd.bed.config_version >= 3:
            log("containerd 2.x: the resize's task lookup is bounded at 2 s (see the docstring); "
                "this scenario's chain needs 1.6")
        tmp, cg = c.ctd.tmp, c.ctd.cgroup_parent
        for f in ("rbac.yaml", "admission-policy.yaml"):
            c.kubectl("apply", "-f", os.path.join(SOURCE, "deploy", "components", "node-condition", f))
        sbs.identity_pod(c)
        token = sbs.shipped_token(c, bound_pod="identity")
        stuck_pod(c)
        flags = sbs.agent_flags(c, token) + ["--node-condition", "--node-condition-clear-after",
                                             "%ds" % pw.CLEAR_AFTER, "--node-condition-min-interval", "5s"]
        with Agent(c.ctd.endpoint, flags, env=sbs.agent_env(c), log_level="info") as agent:
            wait_until(lambda: (c.node_condition(pw.COND) or {}).get("reason") == "PLEGHealthy",
                       pw.CLEAR_AFTER + 60, "%s False from plegscope" % pw.COND, interval=1.0)
            w, report, ready, cond, thawed = hold(c, agent)
            figures = pw.figures(w, ready, cond, report)
            log("frozen-shim figures: %s" % figures)
            check(figures, report, cond, w)
            pw.recover(c, agent, thawed, figures, "ShimHung")
            wait_until(lambda: cpu_limit(c) == ["300m"], 120, "the resize applied after the thaw", interval=1.0)
    left = leftovers(tmp, cg, rules) + [d for d in [os.path.join(cgroups.FREEZER, "plegscope-freeze-" +
                                                                  os.path.basename(tmp))] if os.path.exists(d)]
    assert not left, "the cluster left behind: %s" % left
    out = os.environ.get("PLEGSCOPE_FROZEN_SHIM_OUT") or os.path.join(harness._log_directory(),
                                                                       "cluster-frozen-shim.json")
    sbs.dump(out, figures)


if __name__ == "__main__":
    harness.main(globals())
